import { FreeformAnswer } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";

const meta = {
  title: "Widgets/FreeformAnswer",
  component: FreeformAnswer,
  args: {
    request: request(
      "ask_question",
      { question: "What should the poster's headline say?" },
      {
        type: "object",
        properties: { answer: { type: "string", minLength: 3, maxLength: 120 } },
        required: ["answer"],
      },
      { prompt: "What should the poster's headline say?" },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof FreeformAnswer>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Limits come from the answer schema; Ctrl+Enter sends. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    const box = canvas.getByLabelText("Your answer");
    await expect(box).toHaveFocus();
    await userEvent.type(box, "Hi");
    await userEvent.click(canvas.getByRole("button", { name: "Send" }));
    await expect(canvas.getByText("Write at least 3 characters.")).toBeVisible();
    await userEvent.type(box, " there, spring is here{Control>}{Enter}{/Control}");
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Hi there, spring is here" });
  },
};

export const Submitting: Story = { args: states.submitting({ answer: "Spring has sprung — 20% off everything" }) };
export const Resolved: Story = { args: states.resolved({ answer: "Spring has sprung — 20% off everything" }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };
