import { AskQuestionWidget } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { focusArrived, questionAnswer, request, states } from "../fixtures.js";

const choices = { question: "Which tone should the launch email take?", choices: ["Friendly", "Formal", "Playful"] };
const freeform = { question: "Any notes for the printer?" };

const meta = {
  title: "Widgets/AskQuestionWidget",
  component: AskQuestionWidget,
  args: {
    request: request("ask_question", choices, questionAnswer, { prompt: choices.question }),
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof AskQuestionWidget>;

export default meta;
type Story = StoryObj<typeof meta>;

const freeformRequest = request("ask_question", freeform, questionAnswer, { prompt: freeform.question });

/** With choices: a radio group; the answer is `{ answer }`. */
export const WithChoices: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: "Playful" }));
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Playful" });
  },
};

/** With choices, answered: the choice stays in place. */
export const WithChoicesResolved: Story = {
  args: states.resolved({ answer: "Formal" }),
  play: async ({ canvas }) => {
    await expect(canvas.getByRole("listitem")).toHaveTextContent("Formal");
    await expect(canvas.queryByRole("radio")).toBeNull();
  },
};

/** Without choices: a text box; Ctrl+Enter sends `{ answer }`. */
export const Freeform: Story = {
  args: { request: freeformRequest },
  play: async ({ args, canvas, canvasElement, userEvent }) => {
    await focusArrived(canvasElement);
    const box = canvas.getByRole("textbox", { name: "Your answer" });
    await expect(box).toHaveFocus();
    await userEvent.type(box, "Matte paper, please{Control>}{Enter}{/Control}");
    await expect(args.respond).toHaveBeenCalledWith({ answer: "Matte paper, please" });
  },
};

/** Without choices, answered: the text stays in place. */
export const FreeformResolved: Story = {
  args: { request: freeformRequest, ...states.resolved({ answer: "Matte paper, please" }) },
  play: async ({ canvas }) => {
    await expect(canvas.getByText("Matte paper, please")).toBeVisible();
    await expect(canvas.queryByRole("textbox")).toBeNull();
  },
};

export const Declined: Story = { args: states.declined };
