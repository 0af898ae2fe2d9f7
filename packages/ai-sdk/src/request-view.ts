import type { InputRequest, ResolutionAction } from "@hitl-kit/protocol";
import { isDataUIPart, isToolUIPart, type UIMessage } from "ai";
import { type HitlRequestData, REQUEST_PART } from "./request-part.js";

/** Where a request stands in the chat, in the words of hitl-kit's widgets (`data-state`). */
export type RequestViewStatus = "pending" | "submitting" | "resolved" | "declined" | "cancelled" | "expired";

/** One request as a widget shows it: the request, its status, and how it was settled once it is. */
export interface RequestView {
  request: InputRequest;
  status: RequestViewStatus;
  resolution?: { action: ResolutionAction; value?: unknown; reason?: string };
}

const settledStatus: Record<ResolutionAction, RequestViewStatus> = {
  accept: "resolved",
  decline: "declined",
  cancel: "cancelled",
  expire: "expired",
};

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
  if (data.state === "settled") {
    return { request: data.request, status: settledStatus[data.resolution.action], resolution: data.resolution };
  }
  const tool = message.parts.find((part) => isToolUIPart(part) && part.toolCallId === data.request.toolCallId);
  const answered =
    tool !== undefined &&
    isToolUIPart(tool) &&
    (tool.state === "approval-responded" || tool.state === "output-available" || tool.state === "output-error");
  return { request: data.request, status: answered ? "submitting" : "pending" };
}
