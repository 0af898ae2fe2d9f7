import type { InputRequest, ResolutionAction } from "@hitl-kit/protocol";
import { type DynamicToolUIPart, isDataUIPart, isToolUIPart, type ToolUIPart, type UIMessage } from "ai";
import { type HitlRequestData, REQUEST_PART } from "./request-part.js";

/** Where a request stands in the chat, in the words of hitl-kit's widgets (`data-state`). */
export type RequestViewStatus = RequestView["status"];

/** How a request was settled: only an accepted one has a value. */
export type RequestViewResolution =
  | { action: "accept"; value: unknown; reason?: string }
  | { action: "decline"; value?: never; reason?: string }
  | { action: "cancel"; value?: never; reason?: string }
  | { action: "expire"; value?: never; reason?: string };

/** The answer the chat holds for a `submitting` request: the value, or the decline or cancel. */
export type RequestViewSent =
  | { action: "accept"; value: unknown; reason?: never }
  | { action: "decline"; value?: never; reason?: string }
  | { action: "cancel"; value?: never; reason?: never };

/**
 * One request as a widget shows it: a union on `status` — open (`pending`), answered in
 * the chat and on its way (`submitting`, with what was `sent`), or settled with its
 * `resolution`.
 */
export type RequestView =
  | { request: InputRequest; status: "pending"; sent?: never; resolution?: never }
  | { request: InputRequest; status: "submitting"; sent: RequestViewSent; resolution?: never }
  | SettledRequestView<"resolved", "accept">
  | SettledRequestView<"declined", "decline">
  | SettledRequestView<"cancelled", "cancel">
  | SettledRequestView<"expired", "expire">;

/** A settled member of {@link RequestView}: its `Status` and the `resolution` of the matching `Action`. */
export interface SettledRequestView<Status extends string, Action extends ResolutionAction> {
  /** The request as the agent asked it. */
  request: InputRequest;
  /** Discriminant: how it settled (`resolved`, `declined`, `cancelled` or `expired`). */
  status: Status;
  /** A settled request has no answer in flight. */
  sent?: never;
  /** How the request was settled. */
  resolution: Extract<RequestViewResolution, { action: Action }>;
}

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
    const { action, value, reason } = data.resolution;
    const why = reason === undefined ? {} : { reason };
    const { request } = data;
    switch (action) {
      case "accept":
        return { request, status: "resolved", resolution: { action, value, ...why } };
      case "decline":
        return { request, status: "declined", resolution: { action, ...why } };
      case "cancel":
        return { request, status: "cancelled", resolution: { action, ...why } };
      case "expire":
        return { request, status: "expired", resolution: { action, ...why } };
    }
  }
  const tool = message.parts.find((part) => isToolUIPart(part) && part.toolCallId === data.request.toolCallId);
  const sent = tool && isToolUIPart(tool) ? sentBy(tool) : undefined;
  return sent ? { request: data.request, status: "submitting", sent } : { request: data.request, status: "pending" };
}

/** The answer a tool part holds (see `answerVerbs`: a cancel is an `output-error` or a denial saying "Cancelled."). */
function sentBy(tool: ToolUIPart | DynamicToolUIPart): RequestViewSent | undefined {
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
