/// <reference types="vite/client" />
import "@hitl-kit/widgets/styles.css";
import "./preview.css";
import type { Preview } from "@storybook/react-vite";

/** Every story on a themed canvas; axe violations fail a story's test. */
const preview: Preview = {
  parameters: {
    layout: "fullscreen",
    a11y: { test: "error" },
  },
  globalTypes: {
    theme: {
      description: "Widget theme",
      toolbar: {
        title: "Theme",
        icon: "mirror",
        items: [
          { value: "light", title: "Light" },
          { value: "dark", title: "Dark" },
        ],
        dynamicTitle: true,
      },
    },
  },
  initialGlobals: { theme: "light" },
  decorators: [
    (Story, context) => (
      <main className="hitl-story" data-hitl-theme={context.globals.theme === "dark" ? "dark" : "light"}>
        <Story />
      </main>
    ),
  ],
};

export default preview;
