import { type InputRequest, type ProtocolEvent, resolutionOf } from "@hitl-kit/protocol";
import { isDataUIPart, isToolUIPart, type UIMessage } from "ai";
import {
  answered,
  type HitlRequestData,
  type HitlSettledData,
  type HitlSettledPart,
  REQUEST_PART,
  resultChunk,
  SETTLED_PART,
} from "./request-part.js";

/**
 * The settlements of requests an earlier reply shows, from the events that come before a
 * new message's reply: the server cancels the requests still open when a message arrives.
 * The AI SDK streams into the new reply only, so each comes as a transient
 * `data-hitl-settled` part, which `useChat`'s `onData` hands to {@link applyHitlSettlement}.
 */
export class EarlierSettlements {
  readonly #open: Map<string, InputRequest>;
  readonly #resolutions = new Map<string, HitlSettledData["resolution"]>();

  /** `open`: the requests open before the message was sent. */
  constructor(open: readonly InputRequest[]) {
    this.#open = new Map(open.map((request) => [request.toolCallId, request]));
  }

  /** The chunk that says one of those requests was settled, once its call's result is in. */
  chunks(event: ProtocolEvent): HitlSettledPart[] {
    if (event.type === "input.resolved" && this.#open.has(event.toolCallId)) {
      this.#resolutions.set(event.toolCallId, resolutionOf(event));
    }
    if (event.type !== "tool.result") return [];
    const request = this.#open.get(event.toolCallId);
    const resolution = this.#resolutions.get(event.toolCallId);
    if (!request || !resolution) return [];
    const data: HitlSettledData = { request, resolution, result: { outcome: event.outcome, output: event.output } };
    const part: HitlSettledPart = { type: `data-${SETTLED_PART}`, id: request.requestId, data, transient: true };
    return [part];
  }
}

/**
 * Shows in the chat a `data-hitl-settled` part from `useChat`'s `onData`: the request of an
 * earlier reply, settled when the person sent a message instead of answering, shows settled
 * — its `data-hitl-request` part and its tool part end as `loadMessages` would show them
 * after a reload — so its widget no longer takes an answer the server would not. Any other
 * part, or one whose request no message shows, leaves `messages` as they are (the same array).
 * @example
 * const chat = useChat({
 *   transport,
 *   onData: (part) => chat.setMessages((messages) => applyHitlSettlement(messages, part)),
 * });
 */
export function applyHitlSettlement<Message extends UIMessage>(
  messages: Message[],
  part: { type: string; data?: unknown },
): Message[] {
  if (part.type !== `data-${SETTLED_PART}`) return messages;
  const { request, resolution, result } = part.data as HitlSettledData;
  const index = messages.findIndex(
    (message) =>
      message.role === "assistant" &&
      message.parts.some((candidate) => isToolUIPart(candidate) && candidate.toolCallId === request.toolCallId),
  );
  if (index === -1) return messages;
  const message = messages[index]!;
  const settled: HitlRequestData = { request, state: "settled", resolution };
  const parts = message.parts.map((candidate) => {
    if (isDataUIPart(candidate) && candidate.type === `data-${REQUEST_PART}` && candidate.id === request.requestId) {
      return { ...candidate, data: settled };
    }
    if (!isToolUIPart(candidate) || candidate.toolCallId !== request.toolCallId) return candidate;
    // The state the stream's result chunk gives the part (`tool-output-error` → `output-error`, …).
    const end = resultChunk(request.toolCallId, result.outcome, result.output, request.kind === "approval");
    // An approval nobody gave or refused leaves no `approval` (one without `approved` reads as still open).
    const { approval: _unanswered, ...unapproved } = candidate as typeof candidate & { approval?: unknown };
    return {
      ...(answered(resolution.action) ? candidate : unapproved),
      state: end.type.slice("tool-".length),
      output: "output" in end ? end.output : undefined,
      errorText: "errorText" in end ? end.errorText : undefined,
    };
  });
  const next = [...messages];
  next[index] = { ...message, parts } as Message;
  return next;
}
