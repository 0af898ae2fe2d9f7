import type { StorybookConfig } from "@storybook/react-vite";
import { defaultClientConditions } from "vite";

/** Storybook for the widget kit; workspace packages resolve to their sources, as in tests. */
const config: StorybookConfig = {
  stories: ["../stories/**/*.stories.@(ts|tsx)"],
  // The transcript stories render the demo's widgets, whose pictures the demo serves.
  staticDirs: ["../../apps/chat/public"],
  framework: { name: "@storybook/react-vite", options: {} },
  addons: ["@storybook/addon-a11y", "@storybook/addon-vitest"],
  core: { disableTelemetry: true },
  viteFinal: (vite) => {
    const conditions = vite.resolve?.conditions ?? [...defaultClientConditions];
    vite.resolve = { ...vite.resolve, conditions: ["@hitl-kit/source", ...conditions] };
    return vite;
  },
};

export default config;
