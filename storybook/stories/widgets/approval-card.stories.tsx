import { ApprovalCard } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";

const input = {
  chargeId: "ch_3PqL9x2eZvKYlo2C",
  amount: 1250,
  currency: "EUR",
  customer: { name: "Ada Lovelace", email: "ada@example.com" },
};

const meta = {
  title: "Widgets/ApprovalCard",
  component: ApprovalCard<typeof input>,
  args: {
    request: request(
      "refund_charge",
      input,
      { type: "object", properties: { reason: { type: "string", maxLength: 10_000 } }, additionalProperties: false },
      { prompt: "Refund €1,250.00 to Ada Lovelace?", kind: "approval" },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof ApprovalCard<typeof input>>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Approving without a reason answers `{}`. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Approve" }));
    await expect(args.respond).toHaveBeenCalledWith({});
  },
};

/** Approving with a reason answers `{ reason }`. */
export const ApproveWithReason: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.type(canvas.getByLabelText(/Reason/), "Duplicate charge");
    await userEvent.click(canvas.getByRole("button", { name: "Approve" }));
    await expect(args.respond).toHaveBeenCalledWith({ reason: "Duplicate charge" });
  },
};

/** Denying calls `decline(reason)`. */
export const Deny: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.type(canvas.getByLabelText(/Reason/), "Over the limit");
    await userEvent.click(canvas.getByRole("button", { name: "Deny" }));
    await expect(args.decline).toHaveBeenCalledWith("Over the limit");
  },
};

export const Submitting: Story = { args: states.submitting({ reason: "Customer called support." }) };
export const Resolved: Story = { args: states.resolved({ reason: "Customer called support." }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };

const link = `https://payments.example.com/refunds/${"ch_3PqL9x2eZvKYlo2C".repeat(6)}`;

/** A long key, a long unbroken value and a refusal that quotes a URL wrap inside a phone-wide card instead of widening it. */
export const LongUnbrokenText: Story = {
  args: {
    request: request(
      "refund_charge",
      // An input with a key of its own, as a tool's arguments may have.
      { ...input, chargeId: link, recipient_email_address_of_the_customer: "ada.lovelace@example.com" } as typeof input,
      { type: "object", properties: { reason: { type: "string" } } },
      { prompt: "Refund €1,250.00 to Ada Lovelace?", kind: "approval" },
    ),
    ...states.error([{ path: ["reason"], message: `Give the reason the ledger at ${link} needs.` }]),
  },
  play: async ({ canvasElement }) => {
    const card = canvasElement.querySelector<HTMLElement>(".hitl-widget")!;
    card.style.width = "288px"; // a 320 px phone, less the page's margins
    await expect(card.scrollWidth).toBeLessThanOrEqual(card.clientWidth);
    const value = canvasElement.querySelector<HTMLElement>(".hitl-values__value")!;
    await expect(value.getBoundingClientRect().width).toBeGreaterThan(100); // not one character per line
  },
};
