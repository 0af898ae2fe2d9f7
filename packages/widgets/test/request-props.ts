import type { WidgetProps } from "@hitl-kit/react";
import { vi } from "vitest";

/** Widget props for a test: an open request with spies for the verbs. */
export function requestProps<Input, Answer = unknown>(
  input: Input,
  overrides: Partial<WidgetProps<Input, Answer>> & { answerSchema?: Record<string, unknown>; prompt?: string } = {},
) {
  const { answerSchema, prompt, ...rest } = overrides;
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
    status: "pending" as const,
    respond: vi.fn<(value: Answer) => void>(),
    decline: vi.fn<(reason?: string) => void>(),
    cancel: vi.fn<() => void>(),
    ...rest,
  } satisfies WidgetProps<Input, Answer>;
}
