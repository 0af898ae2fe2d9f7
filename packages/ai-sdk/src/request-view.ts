import {
  type PendingRequestState,
  type SentAnswer,
  type SettledRequestState,
  type SubmittingRequestState,
  settledState,
} from "@hitl-kit/client";
import { type DynamicToolUIPart, isDataUIPart, isToolUIPart, type ToolUIPart, type UIMessage } from "ai";
import { type HitlRequestData, REQUEST_PART } from "./request-part.js";

/**
 * One request as a widget shows it, in the client's own states: open (`pending`), answered
 * in the chat and on its way (`submitting`, with what was `sent`), or settled with its
 * `resolution`.
 */
export type RequestView = PendingRequestState | SubmittingRequestState | SettledRequestState;

/** Where a request stands in the chat, in the words of hitl-kit's widgets (`data-state`). */
export type RequestViewStatus = RequestView["status"];

/** The `data-hitl-request` parts of a message, in order. */
export function requestPartsOf(message: UIMessage): { id: string; data: HitlRequestData }[] {
  return message.parts.flatMap((part) =>
    isDataUIPart(part) && part.type === `data-${REQUEST_PART}`
      ? [{ id: part.id ?? "", data: part.data as HitlRequestData }]
      : [],
  );
}

/**
 * The view of a request part: settled as the server said; `submitting` while the chat holds
 * the person's answer (the tool part is answered) and the server has not settled it yet.
 */
export function requestViewOf(message: UIMessage, data: HitlRequestData): RequestView {
  if (data.state === "settled") return settledState(data.request, data.resolution);
  const tool = message.parts.find((part) => isToolUIPart(part) && part.toolCallId === data.request.toolCallId);
  const sent = tool && isToolUIPart(tool) ? sentBy(tool) : undefined;
  return sent ? { request: data.request, status: "submitting", sent } : { request: data.request, status: "pending" };
}

/** The answer a tool part holds (see `answerVerbs`: a cancel is an `output-error` or a denial saying "Cancelled."). */
function sentBy(tool: ToolUIPart | DynamicToolUIPart): SentAnswer | undefined {
  switch (tool.state) {
    case "approval-responded":
      if (tool.approval.approved) return { action: "accept", value: {} };
      return tool.approval.reason === "Cancelled."
        ? { action: "cancel" }
        : { action: "decline", ...(tool.approval.reason ? { reason: tool.approval.reason } : {}) };
    case "output-available":
      return { action: "accept", value: tool.output };
    case "output-error":
      return tool.errorText === "Cancelled." ? { action: "cancel" } : { action: "decline", reason: tool.errorText };
    default:
      return undefined;
  }
}
