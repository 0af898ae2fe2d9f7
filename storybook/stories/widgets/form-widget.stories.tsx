import { FormWidget } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";

const shippingSchema = {
  type: "object",
  properties: {
    recipient: { type: "string", title: "Recipient", minLength: 2 },
    speed: { title: "Shipping speed", enum: ["Standard", "Express"], default: "Standard" },
    copies: { type: "integer", title: "Copies", minimum: 1, maximum: 50, default: 10 },
    giftWrap: { type: "boolean", title: "Gift wrap" },
  },
  required: ["recipient", "speed", "copies"],
};

const meta = {
  title: "Widgets/FormWidget",
  component: FormWidget,
  args: {
    request: request("ship_posters", { posterId: "p_42" }, shippingSchema, { prompt: "Where should the posters go?" }),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof FormWidget>;

export default meta;
type Story = StoryObj<typeof meta>;

/** An empty required field is flagged inline and focused; once filled, the typed answer goes out. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    const recipient = canvas.getByLabelText(/Recipient/);
    await expect(recipient).toHaveFocus();
    await expect(recipient).toHaveAttribute("aria-invalid", "true");
    await userEvent.type(recipient, "Studio North");
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.respond).toHaveBeenCalledWith({
      recipient: "Studio North",
      speed: "Standard",
      copies: 10,
      giftWrap: false,
    });
  },
};

export const Submitting: Story = {
  args: states.submitting({ recipient: "Studio North", speed: "Express", copies: 12 }),
};
export const Resolved: Story = { args: states.resolved({ recipient: "Studio North", speed: "Express", copies: 12 }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
/** The server's 422, with the issue next to its field. */
export const Failed: Story = {
  name: "Error",
  args: states.error([{ path: ["copies"], message: "Only 8 copies are in stock." }]),
  play: async ({ canvas }) => {
    await expect(canvas.getByLabelText(/Copies/)).toHaveAttribute("aria-invalid", "true");
  },
};
