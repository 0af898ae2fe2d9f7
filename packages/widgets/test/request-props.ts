import type { PendingRequestState } from "@hitl-kit/client";
import type { WidgetProps } from "@hitl-kit/react";
import { vi } from "vitest";

/**
 * Widget props for a test: an open (`pending`) request with spies for the verbs. Put a
 * test in another state by passing its fields after the spread (`status="resolved"
 * resolution={…}`).
 */
export function requestProps<Input, Answer = unknown>(
  input: Input,
  overrides: { answerSchema?: Record<string, unknown>; prompt?: string } = {},
) {
  const { answerSchema, prompt } = overrides;
  return {
    request: {
      requestId: "req_1",
      toolCallId: "call_1",
      toolName: "ask_question",
      kind: "input" as const,
      prompt: prompt ?? "Which colour?",
      input,
      answerSchema: answerSchema ?? { type: "object", properties: { answer: { type: "string" } } },
    },
    status: "pending" as PendingRequestState["status"],
    respond: vi.fn<(value: Answer) => void>(),
    decline: vi.fn<(reason?: string) => void>(),
    cancel: vi.fn<() => void>(),
  } satisfies WidgetProps<Input, Answer>;
}
