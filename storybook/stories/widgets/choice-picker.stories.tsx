import { ChoicePicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { focusArrived, questionAnswer, request, states } from "../fixtures.js";

const meta = {
  title: "Widgets/ChoicePicker",
  component: ChoicePicker,
  args: {
    request: request(
      "ask_question",
      { question: "Which tone should the launch email take?", choices: ["Friendly", "Formal", "Playful"] },
      questionAnswer,
      { prompt: "Which tone should the launch email take?" },
    ),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof ChoicePicker>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Click an option, then Choose: the answer is `{ answer }`, as `askQuestion` wants. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: "Formal" }));
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Formal" });
  },
};

/** Keyboard only: focus starts on the first option, arrows move and choose, Enter submits. */
export const KeyboardOnly: Story = {
  play: async ({ args, canvas, canvasElement, userEvent }) => {
    await focusArrived(canvasElement);
    await expect(canvas.getByRole("radio", { name: "Friendly" })).toHaveFocus();
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    await expect(canvas.getByRole("radio", { name: "Playful" })).toHaveAttribute("aria-checked", "true");
    await userEvent.keyboard("{Enter}");
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Playful" });
  },
};

/** Declining calls `decline()`. */
export const Decline: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Decline" }));
    await expect(args.decline).toHaveBeenCalled();
  },
};

export const Submitting: Story = { args: states.submitting({ answer: "Friendly" }) };
export const Resolved: Story = { args: states.resolved({ answer: "Friendly" }) };
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
/** A refused answer: the message shows and the picker stays answerable. */
export const Failed: Story = {
  name: "Error",
  args: states.error([{ path: ["answer"], message: "That tone is no longer offered." }]),
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: "Playful" }));
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Playful" });
  },
};
