import { FallbackWidget } from "@hitl-kit/react";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";
import { bookingSchema, lineItemsSchema } from "../schemas.js";

const meta = {
  title: "Forms/FallbackWidget",
  component: FallbackWidget,
  args: {
    request: request("book_meeting", {}, bookingSchema, { prompt: "When should the launch meeting happen?" }),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof FallbackWidget>;

export default meta;
type Story = StoryObj<typeof meta>;

/** An unregistered tool gets a form from its answer schema. */
export const Pending: Story = {
  args: {
    request: request("book_meeting", {}, { ...bookingSchema, required: ["title"] }, { prompt: "Book the meeting?" }),
  },
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.respond).toHaveBeenCalledWith({ title: "Spring launch sync", attendees: 4, remote: true });
  },
};

/** Decline (say no) and Skip (leave it unanswered) are always there. */
export const DeclineAndSkip: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Decline" }));
    await expect(args.decline).toHaveBeenCalled();
    await userEvent.click(canvas.getByRole("button", { name: "Skip" }));
    await expect(args.cancel).toHaveBeenCalled();
  },
};

/** An answer schema beyond a form: a JSON editor. */
export const JsonFallback: Story = {
  args: { request: request("order_items", {}, lineItemsSchema, { prompt: "Which items should I order?" }) },
  play: async ({ args, canvas, userEvent }) => {
    const editor = canvas.getByLabelText(/JSON/);
    await userEvent.clear(editor);
    await userEvent.click(editor);
    await userEvent.paste('{"items":[{"sku":"B-7","quantity":1}]}');
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.respond).toHaveBeenCalledWith({ items: [{ sku: "B-7", quantity: 1 }] });
  },
};

/** An unregistered approval: the call's input, Approve and Deny. */
export const Approval: Story = {
  args: {
    request: request(
      "delete_branch",
      { repository: "acme/web", branch: "release/2024-q4" },
      { type: "object", properties: { reason: { type: "string", maxLength: 10_000 } }, additionalProperties: false },
      { prompt: "Delete the branch release/2024-q4?", kind: "approval" },
    ),
  },
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Approve" }));
    await expect(args.respond).toHaveBeenCalledWith({});
  },
};

export const Submitting: Story = {
  args: states.submitting({ title: "Spring launch sync", attendees: 6, room: "Atlas" }),
};
export const Resolved: Story = { args: states.resolved({ title: "Spring launch sync", attendees: 6, room: "Atlas" }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
/** The server's 422: issues next to their fields, still answerable. */
export const Failed: Story = {
  name: "Error",
  args: states.error([{ path: ["attendees"], message: "The room holds at most 8 people." }]),
  play: async ({ canvas }) => {
    await expect(canvas.getByText("The room holds at most 8 people.")).toBeVisible();
  },
};
