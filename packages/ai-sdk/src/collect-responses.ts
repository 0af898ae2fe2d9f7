import type { InputRequest, InputResponse } from "@hitl-kit/protocol";
import { getToolName, isToolUIPart, type UIMessage } from "ai";

/** The longest reason the server takes. */
const MAX_REASON = 10_000;

/**
 * The person's answers in the history `useChat` sent, as responses to the requests the
 * server still has open — nothing else: a tool part whose call has no open request, whose
 * tool name differs, or whose approval id is not the open request's id is left out, so an
 * edited or forged history cannot settle anything.
 *
 * - `addToolOutput` (`output-available`) → accept with the output as the answer
 * - `addToolOutput` with `state: "output-error"` → cancel, with the error text as the reason
 * - `addToolApprovalResponse` (`approval-responded`) → accept, or decline with its reason
 */
export function collectResponses(messages: readonly UIMessage[], pending: readonly InputRequest[]): InputResponse[] {
  const open = new Map(pending.map((request) => [request.toolCallId, request]));
  const responses = new Map<string, InputResponse>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (!isToolUIPart(part)) continue;
      const request = open.get(part.toolCallId);
      if (!request || getToolName(part) !== request.toolName || responses.has(request.requestId)) continue;
      const response = responseOf(part, request);
      if (response) responses.set(request.requestId, response);
    }
  }
  return [...responses.values()];
}

type ToolPart = Extract<UIMessage["parts"][number], { toolCallId: string }>;

function responseOf(part: ToolPart, request: InputRequest): InputResponse | undefined {
  const { requestId } = request;
  if (request.kind === "approval") {
    if (part.state !== "approval-responded" || part.approval.id !== requestId) return undefined;
    if (part.approval.approved) return { requestId, action: "accept" };
    const { reason } = part.approval;
    return { requestId, action: "decline", ...(reason ? { reason: reason.slice(0, MAX_REASON) } : {}) };
  }
  if (part.state === "output-available") return { requestId, action: "accept", value: part.output };
  if (part.state === "output-error") {
    return { requestId, action: "cancel", ...(part.errorText ? { reason: part.errorText.slice(0, MAX_REASON) } : {}) };
  }
  return undefined;
}
