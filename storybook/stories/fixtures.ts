import type { RequestError, TypedInputRequest } from "@hitl-kit/client";
import { expect, waitFor } from "storybook/test";

/** A parked request as a story needs it. */
export function request<Input>(
  toolName: string,
  input: Input,
  answerSchema: Record<string, unknown>,
  options: { prompt?: string; kind?: "approval" | "input" } = {},
): TypedInputRequest<Input> {
  return {
    requestId: `req_${toolName}`,
    toolCallId: `call_${toolName}`,
    toolName,
    kind: options.kind ?? "input",
    input,
    answerSchema,
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
  };
}

/** Args of the in-flight, settled and failed states, for the state stories every widget has. */
export const states = {
  submitting: <Answer>(value: Answer) => ({
    status: "submitting" as const,
    sent: { action: "accept" as const, value },
  }),
  resolved: <Answer>(value: Answer) => ({
    status: "resolved" as const,
    resolution: { action: "accept" as const, value },
  }),
  declined: {
    status: "declined" as const,
    resolution: { action: "decline" as const, reason: "Not this time." },
  },
  cancelled: { status: "cancelled" as const, resolution: { action: "cancel" as const } },
  expired: { status: "expired" as const, resolution: { action: "expire" as const } },
  /** A refusal with issues as the server words it (its summary is for developers), or an answer the network lost. */
  error: (issues: RequestError["issues"] = []) => ({
    status: "error" as const,
    error: (issues.length
      ? {
          code: "invalid_answer",
          message: `The answer does not fit the answer schema of the tool (${serverSummary(issues)}).`,
          issues,
        }
      : {
          code: "network",
          message:
            "Could not reach /api/agent/sessions/ses_1/responses (Failed to fetch); check the connection and try again.",
        }) satisfies RequestError,
  }),
};

/** The answer schema of `askQuestion`. */
export const questionAnswer = {
  type: "object",
  properties: { answer: { type: "string", minLength: 1, maxLength: 10_000 } },
  required: ["answer"],
  additionalProperties: false,
};

/** The issues as the server's message lists them (`path: message; …`): stories use only public entries. */
function serverSummary(issues: NonNullable<RequestError["issues"]>): string {
  return issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`).join("; ");
}

/**
 * Waits until focus has moved into the story's widget. A widget takes focus in an effect after
 * it mounts, which Storybook's own UI (it renders without React's `act`) can run after the play
 * function has started: a play function that types must wait for it, as a person would.
 */
export function focusArrived(canvasElement: HTMLElement): Promise<void> {
  return waitFor(() =>
    expect(canvasElement).toContainElement(canvasElement.ownerDocument.activeElement as HTMLElement),
  );
}
