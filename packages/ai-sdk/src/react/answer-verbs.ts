import type { InputRequest } from "@hitl-kit/protocol";

/**
 * The part of `useChat()`'s helpers (or a `Chat`) that answers tool calls. The verbs are
 * methods, so a chat whose tool parts are typed (`UIMessage<…, …, MyTools>`, its
 * `addToolOutput` taking only its tools' outputs) fits too: the widget sends each tool the
 * answer its schema checked.
 */
export interface ChatAnswers {
  /** Answers an input request: the answer as `output`, a decline or cancel as an `output-error`. */
  addToolOutput(
    options:
      | { tool: never; toolCallId: string; output: unknown; state?: "output-available" }
      | { tool: never; toolCallId: string; state: "output-error"; errorText: string },
  ): unknown;
  /** Answers an approval; `id` is the request's id, which the transport uses as the approval id. */
  addToolApprovalResponse(options: { id: string; approved: boolean; reason?: string }): unknown;
  /** The chat's status and error: an answer the server refused shows on its widget. */
  status?: string;
  /** The chat's last error, such as the server's refusal of an answer. */
  error?: Error | undefined;
}

/** A widget's three verbs for one request, as the chat's answers the transport sends. */
export interface AnswerVerbs {
  /** Accepts with `value` as the answer (an approval ignores it and approves). */
  respond: (value: unknown) => void;
  /** Declines, with the person's reason when given. */
  decline: (reason?: string) => void;
  /** Cancels the request, which the server settles as cancelled. */
  cancel: () => void;
}

/**
 * The verbs for a request: an approval answers through `addToolApprovalResponse` (approve,
 * or deny with the reason; cancelling denies too), an input request through `addToolOutput`
 * (the answer as the output; declining or cancelling as an `output-error`, which the server
 * settles as cancelled).
 */
export function answerVerbs(chat: ChatAnswers, request: InputRequest): AnswerVerbs {
  const { requestId, toolCallId, toolName } = request;
  const tool = toolName as never;
  if (request.kind === "approval") {
    return {
      respond: () => void chat.addToolApprovalResponse({ id: requestId, approved: true }),
      decline: (reason) =>
        void chat.addToolApprovalResponse({ id: requestId, approved: false, ...(reason ? { reason } : {}) }),
      cancel: () => void chat.addToolApprovalResponse({ id: requestId, approved: false, reason: "Cancelled." }),
    };
  }
  return {
    respond: (output) => void chat.addToolOutput({ tool, toolCallId, output }),
    decline: (reason) =>
      void chat.addToolOutput({ tool, toolCallId, state: "output-error", errorText: reason || "Declined." }),
    cancel: () => void chat.addToolOutput({ tool, toolCallId, state: "output-error", errorText: "Cancelled." }),
  };
}
