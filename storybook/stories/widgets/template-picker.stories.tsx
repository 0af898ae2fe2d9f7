import { TemplatePicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";
import { expectInert, refusedColors, refusedUrls } from "./model-payloads.js";

/** Templates as a `pick_template` call sends them. */
export const templates = [
  { id: "bold", name: "Bold", description: "Big type, high contrast", colors: ["#111827", "#f43f5e"] },
  { id: "calm", name: "Calm", description: "Soft pastels", colors: ["#bae6fd", "#e9d5ff"] },
  { id: "retro", name: "Retro", description: "Warm 70s tones", colors: ["#f59e0b", "#b45309"] },
];

const meta = {
  title: "Widgets/TemplatePicker",
  component: TemplatePicker,
  args: {
    request: request(
      "pick_template",
      { templates },
      { type: "object", properties: { templateId: { type: "string" } }, required: ["templateId"] },
      { prompt: "Which template should the poster use?" },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof TemplatePicker>;

export default meta;
type Story = StoryObj<typeof meta>;

/** The answer is `{ templateId }`. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: "Calm" }));
    await userEvent.click(canvas.getByRole("button", { name: "Use template" }));
    await expect(args.respond).toHaveBeenCalledWith({ templateId: "calm" });
  },
};

/**
 * Previews and colours the model wrote to run script, leave the page's origin or make the
 * swatch's gradient fetch a URL: each such template shows a placeholder with its name,
 * the others their picture or swatch, and no request leaves.
 */
export const RefusedContent: Story = {
  args: {
    request: request(
      "pick_template",
      {
        templates: [
          { id: "bold", name: "Bold", preview: "/templates/bold.svg" },
          templates[1]!,
          ...Object.entries(refusedUrls).map(([name, preview]) => ({ id: name, name: `URL: ${name}`, preview })),
          ...Object.entries(refusedColors).map(([name, color]) => ({
            id: name,
            name: `Colour: ${name}`,
            colors: ["#fff", color],
          })),
        ],
      },
      { type: "object", properties: { templateId: { type: "string" } }, required: ["templateId"] },
    ),
  },
  play: async ({ canvasElement }) => {
    await expectInert(canvasElement, [
      ...Object.keys(refusedUrls).map((name) => `URL: ${name}`),
      ...Object.keys(refusedColors).map((name) => `Colour: ${name}`),
    ]);
    await expect(canvasElement.querySelector("img")?.getAttribute("src")).toBe("/templates/bold.svg");
  },
};

export const Submitting: Story = { args: states.submitting({ templateId: "retro" }) };
export const Resolved: Story = { args: states.resolved({ templateId: "retro" }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };
