import type { RequestError, RequestStatus, TypedInputRequest } from "@hitl-kit/client";

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

/** Args of a settled or failed state, for the state stories every widget has. */
export const states = {
  submitting: { status: "submitting" as RequestStatus },
  resolved: <Answer>(value: Answer) => ({
    status: "resolved" as RequestStatus,
    resolution: { action: "accept" as const, value },
  }),
  declined: {
    status: "declined" as RequestStatus,
    resolution: { action: "decline" as const, reason: "Not this time." },
  },
  cancelled: { status: "cancelled" as RequestStatus, resolution: { action: "cancel" as const } },
  expired: { status: "expired" as RequestStatus, resolution: { action: "expire" as const } },
  error: (issues: RequestError["issues"] = []): { status: RequestStatus; error: RequestError } => ({
    status: "error",
    error: {
      code: issues.length ? "invalid_answer" : "network",
      message: "The answer was not sent. Try again.",
      issues,
    },
  }),
};

/** The answer schema of `askQuestion`. */
export const questionAnswer = {
  type: "object",
  properties: { answer: { type: "string", minLength: 1, maxLength: 10_000 } },
  required: ["answer"],
  additionalProperties: false,
};
