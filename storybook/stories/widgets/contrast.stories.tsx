import { FormWidget, FreeformAnswer, MultiChoicePicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn, within } from "storybook/test";
import { contrastRatio } from "../contrast.js";
import { request } from "../fixtures.js";

const verbs = { status: "pending" as const, respond: fn(), decline: fn(), cancel: fn() };
/** The requests of one theme's column, their questions named after the theme (each widget is a landmark of its own). */
function requests(theme: string) {
  return {
    channels: request(
      "pick_channels",
      { choices: ["Email", "Text message", "In-app banner"] },
      { type: "object", properties: { answers: { type: "array", items: { type: "string" } } } },
      { prompt: `Where should we announce it (${theme})?` },
    ),
    note: request(
      "ask_question",
      {},
      { type: "object", properties: { answer: { type: "string" } } },
      { prompt: `Anything to add (${theme})?` },
    ),
    city: request(
      "book_trip",
      {},
      { type: "object", properties: { city: { type: "string" } } },
      { prompt: `Which city (${theme})?` },
    ),
  };
}

/** The controls of every kind, in the light and the dark theme side by side. */
function Controls() {
  return (
    <div style={{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(min(22rem, 100%), 1fr))", gap: 24 }}>
      {(["light", "dark"] as const).map((theme) => (
        <section
          key={theme}
          aria-label={`${theme} theme`}
          data-hitl-theme={theme}
          style={{ display: "grid", gap: 16, padding: 16, background: theme === "dark" ? "#0e1014" : "#f5f6f8" }}
        >
          <MultiChoicePicker {...verbs} request={requests(theme).channels} />
          <FreeformAnswer {...verbs} request={requests(theme).note} />
          <FormWidget {...verbs} request={requests(theme).city} />
        </section>
      ))}
    </div>
  );
}

const meta = {
  title: "Widgets/Contrast",
  component: Controls,
  parameters: {
    docs: {
      description: {
        component: "Control outlines and the checkbox tick against what surrounds them (WCAG 1.4.11: 3:1).",
      },
    },
  },
} satisfies Meta<typeof Controls>;
export default meta;
type Story = StoryObj<typeof meta>;

/** Every control's outline is at least 3:1 against the card, and the tick at least 3:1 against the checked fill, in both themes. */
export const Outlines: Story = {
  play: async ({ canvasElement, userEvent }) => {
    for (const theme of ["light", "dark"]) {
      const root = within(canvasElement).getByRole("region", { name: `${theme} theme` });
      await userEvent.click(within(root).getByRole("checkbox", { name: "Email" }));
      const card = getComputedStyle(root.querySelector(".hitl-widget")!).backgroundColor;
      const outlined = root.querySelectorAll<HTMLElement>(
        '.hitl-option, [aria-checked="false"] > .hitl-option__indicator, .hitl-input, .hitl-textarea',
      );
      await expect(outlined.length).toBeGreaterThan(4);
      for (const control of outlined) {
        const ratio = contrastRatio(getComputedStyle(control).borderTopColor, card);
        await expect(ratio, `${theme}: ${control.className}`).toBeGreaterThanOrEqual(3);
      }
      const checked = root.querySelector<HTMLElement>('[aria-checked="true"] > .hitl-option__indicator')!;
      const tick = getComputedStyle(checked, "::after").backgroundColor;
      await expect(
        contrastRatio(tick, getComputedStyle(checked).backgroundColor),
        `${theme}: tick`,
      ).toBeGreaterThanOrEqual(3);
    }
  },
};
