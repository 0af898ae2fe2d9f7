import { MultiChoicePicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { focusArrived, request, states } from "../fixtures.js";

const meta = {
  title: "Widgets/MultiChoicePicker",
  component: MultiChoicePicker,
  args: {
    request: request(
      "pick_channels",
      { choices: ["Email", "Push notification", "SMS", "In-app banner"] },
      {
        type: "object",
        properties: { answers: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 } },
        required: ["answers"],
      },
      { prompt: "Where should we announce the sale? Pick up to two." },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof MultiChoicePicker>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Limits come from the answer schema (`minItems` 1, `maxItems` 2); a third pick is refused. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("checkbox", { name: "SMS" }));
    await userEvent.click(canvas.getByRole("checkbox", { name: "Email" }));
    await userEvent.click(canvas.getByRole("checkbox", { name: "In-app banner" }));
    await expect(canvas.getByRole("alert")).toHaveTextContent("You can choose up to 2.");
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ answers: ["Email", "SMS"] });
  },
};

/** Keyboard only: arrows move, Space toggles, Enter submits. */
export const KeyboardOnly: Story = {
  play: async ({ args, canvasElement, userEvent }) => {
    await focusArrived(canvasElement);
    await userEvent.keyboard(" {ArrowDown}{ArrowDown} {Enter}");
    await expect(args.respond).toHaveBeenCalledWith({ answers: ["Email", "SMS"] });
  },
};

export const Submitting: Story = { args: states.submitting({ answers: ["Email", "In-app banner"] }) };
export const Resolved: Story = { args: states.resolved({ answers: ["Email", "In-app banner"] }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };
