import { type WidgetProps, type WidgetTextOverrides, WidgetTextsProvider } from "@hitl-kit/react";
import { FreeformAnswer } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { useState } from "react";
import { expect, fn } from "storybook/test";
import { focusArrived, request, states } from "../fixtures.js";

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
  play: async ({ args, canvas, canvasElement, userEvent }) => {
    await focusArrived(canvasElement);
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

/** In `minutes` from when the story renders. */
function useExpiresIn(minutes: number): string {
  return useState(() => new Date(Date.now() + minutes * 60_000).toISOString())[0];
}

/** A request that expires in 90 seconds: the frame says by when to answer, and says once that little time is left. */
export const ExpiringSoon: Story = {
  render: function Render(args) {
    return <FreeformAnswer {...args} request={{ ...args.request, expiresAt: useExpiresIn(1.5) }} />;
  },
  play: async ({ canvas, canvasElement }) => {
    const time = canvasElement.querySelector("time");
    await expect(time).toBeVisible();
    await expect(new Date(time?.dateTime ?? "").getTime()).toBeGreaterThan(Date.now());
    await expect(time?.parentElement).toHaveTextContent(/^Answer by /);
    await expect(await canvas.findByText("Less than 2 minutes left to answer.")).toHaveAttribute("aria-live", "polite");
  },
};

/** Past its deadline, still open: the server has not settled it as expired yet (or cannot be reached). */
export const TimeUp: Story = {
  render: function Render(args) {
    return <FreeformAnswer {...args} request={{ ...args.request, expiresAt: useExpiresIn(-0.5) }} />;
  },
  play: async ({ canvas, canvasElement }) => {
    await expect(await canvas.findByText("The time to answer has run out.")).toHaveAttribute("aria-live", "polite");
    await expect(canvasElement.querySelector(".hitl-widget__expiry")).toHaveAttribute("data-state", "due");
  },
};

/** Stands in for the server: the request stays open until the story's button lets it expire. */
function ExpiresWhileTyping(args: Pick<WidgetProps, "request" | "respond" | "decline" | "cancel">) {
  const [expired, setExpired] = useState(false);
  const verbs = { respond: args.respond, decline: args.decline, cancel: args.cancel };
  const request = { ...args.request, expiresAt: useExpiresIn(10) };
  return (
    <div style={{ display: "grid", gap: 16, justifyItems: "start" }}>
      {expired ? (
        <FreeformAnswer {...verbs} request={request} status="expired" resolution={{ action: "expire" }} />
      ) : (
        <FreeformAnswer {...verbs} request={request} status="pending" />
      )}
      <button type="button" onClick={() => setExpired(true)} disabled={expired}>
        Let the request expire (as the server would)
      </button>
    </div>
  );
}

/** The request expired while the person was typing: what they typed stays, read-only, to copy. */
export const ExpiredWhileTyping: Story = {
  render: (args) => <ExpiresWhileTyping {...args} />,
  play: async ({ canvas, userEvent }) => {
    await userEvent.type(canvas.getByLabelText("Your answer"), "Spring has sprung, 20% off");
    await userEvent.click(canvas.getByRole("button", { name: /Let the request expire/ }));
    await expect(canvas.getByText("The request expired before it was answered.")).toBeVisible();
    const kept = canvas.getByRole("textbox", { name: "Your answer was not sent. Here is what you typed, to copy." });
    await expect(kept).toHaveValue("Spring has sprung, 20% off");
    await expect(kept).toHaveAttribute("readonly");
  },
};

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
    await expect(
      canvas.getByText("2 / 120 caractères · Écrivez au moins 3 caractères. · Ctrl+Entrée pour envoyer"),
    ).toBeVisible();
    await expect(args.respond).not.toHaveBeenCalled();
  },
};
