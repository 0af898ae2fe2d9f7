import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { AspectRatioPicker } from "../../../apps/chat/src/widgets/aspect-ratio-picker.js";
import { focusArrived, request, states } from "../fixtures.js";

const meta = {
  title: "Demo widgets/AspectRatioPicker",
  component: AspectRatioPicker,
  args: {
    request: request(
      "choose_aspect_ratio",
      { ratios: ["1:1", "4:5", "16:9", "9:16"] },
      { type: "object", properties: { ratio: { type: "string" } }, required: ["ratio"] },
      { prompt: "Which format should the poster have?" },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof AspectRatioPicker>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Keyboard only; the answer is `{ ratio }`. */
export const Pending: Story = {
  play: async ({ args, canvasElement, userEvent }) => {
    await focusArrived(canvasElement);
    await userEvent.keyboard("{ArrowRight}{ArrowRight}{Enter}");
    await expect(args.respond).toHaveBeenCalledWith({ ratio: "16:9" });
  },
};

export const Submitting: Story = { args: states.submitting({ ratio: "4:5" }) };
export const Resolved: Story = { args: states.resolved({ ratio: "4:5" }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };
