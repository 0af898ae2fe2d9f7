import { type WidgetTextOverrides, WidgetTextsProvider } from "@hitl-kit/react";
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

const french: WidgetTextOverrides = {
  send: "Envoyer",
  sending: "Envoi…",
  decline: "Refuser",
  yourAnswer: "Votre réponse",
  writeFirst: "Écrivez d'abord une réponse.",
  atLeast: (count) => `Écrivez au moins ${count} caractères.`,
  atMost: (count) => `Écrivez au plus ${count} caractères.`,
  count: (count, max) => (max ? `${count} / ${max} caractères` : `${count} caractères`),
  sendKeys: "Ctrl+Entrée pour envoyer",
  status: { pending: "En attente", submitting: "Envoi…", resolved: "Répondu", error: "Non envoyé" },
};

/** The same widget with the app's texts in French (`WidgetTextsProvider`); the question comes from the model. */
export const InFrench: Story = {
  args: {
    request: request(
      "ask_question",
      { question: "Que doit dire le titre de l'affiche ?" },
      {
        type: "object",
        properties: { answer: { type: "string", minLength: 3, maxLength: 120 } },
        required: ["answer"],
      },
      { prompt: "Que doit dire le titre de l'affiche ?" },
    ),
  },
  decorators: [
    (Story) => (
      <div lang="fr">
        <WidgetTextsProvider value={french}>
          <Story />
        </WidgetTextsProvider>
      </div>
    ),
  ],
  play: async ({ args, canvas, userEvent }) => {
    const box = canvas.getByLabelText("Votre réponse");
    await expect(canvas.getByRole("status")).toHaveTextContent("En attente");
    await userEvent.type(box, "Hé");
    await userEvent.click(canvas.getByRole("button", { name: "Envoyer" }));
    await expect(canvas.getByRole("alert")).toHaveTextContent("Écrivez au moins 3 caractères.");
    await expect(canvas.getByText("2 / 120 caractères · Ctrl+Entrée pour envoyer")).toBeVisible();
    await expect(args.respond).not.toHaveBeenCalled();
  },
};
