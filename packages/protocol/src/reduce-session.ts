import type { EventOf, ProtocolEvent } from "./events.js";
import type { Message, MessagePart, ResolvedRequest, SessionSnapshot, ToolPart } from "./snapshot.js";

/** The snapshot of a session before its first event. */
export function emptySnapshot(sessionId: string): SessionSnapshot {
  return { sessionId, status: "idle", messages: [], pending: [], resolved: [], lastSeq: 0 };
}

/**
 * Folds one event into a session snapshot: pure, with structural sharing (an unchanged
 * message keeps its identity) and work per text delta that does not grow with the text.
 * An event at or below `lastSeq` was already applied and returns the same snapshot, so
 * replays and reconnects apply each event exactly once.
 * @example
 * const snapshot = events.reduce(reduceSession, emptySnapshot(sessionId));
 */
export function reduceSession(state: SessionSnapshot, event: ProtocolEvent): SessionSnapshot {
  if (event.seq <= state.lastSeq) return state;
  return { ...applyEvent(state, event), lastSeq: event.seq };
}

function applyEvent(state: SessionSnapshot, event: ProtocolEvent): SessionSnapshot {
  switch (event.type) {
    case "session.created":
      return state;
    case "turn.started": {
      const { error: _cleared, ...rest } = state;
      return { ...rest, status: "running" };
    }
    case "message.started": {
      const { messageId: id, role, idempotencyKey, at } = event;
      const message: Message = {
        id,
        role,
        status: "streaming",
        parts: [],
        ...(idempotencyKey ? { idempotencyKey } : {}),
        ...(at ? { at } : {}),
      };
      return { ...state, messages: [...state.messages, message] };
    }
    case "text.delta":
    case "reasoning.delta":
      return updateMessage(state, event.messageId, (message) => appendDelta(message, event));
    case "message.completed":
      return updateMessage(state, event.messageId, (message) =>
        message.status === "complete" ? message : { ...message, status: "complete" },
      );
    case "message.abandoned":
      return dropMessage(state, event.messageId);
    case "tool.called":
      return updateMessage(state, event.messageId, (message) => ({
        ...message,
        parts: [
          ...message.parts,
          {
            type: "tool",
            state: "running",
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            input: event.input,
          },
        ],
      }));
    case "input.requested":
      return event.requests.reduce(
        (next, request) =>
          updateToolPart(next, request.toolCallId, (part) => {
            const core = toolCore(part);
            // A call's next request (a question after its approval, or after another): the earlier stays listed.
            if (part.requestId && part.requestId !== request.requestId)
              core.asked = [...(part.asked ?? []), part.requestId];
            return { ...core, state: "awaiting-input", requestId: request.requestId };
          }),
        { ...state, pending: [...state.pending, ...event.requests] },
      );
    case "input.resolved":
      return updateToolPart(settleRequest(state, event), event.toolCallId, (part) =>
        part.state === "done" ? part : { ...toolCore(part), state: "running", requestId: event.requestId },
      );
    case "tool.result":
      return updateToolPart(state, event.toolCallId, (part) => ({
        ...toolCore(part),
        state: "done",
        ...(part.requestId === undefined ? {} : { requestId: part.requestId }),
        outcome: event.outcome,
        output: event.output,
      }));
    case "turn.waiting":
      return { ...state, status: "waiting" };
    case "turn.completed":
    case "turn.cancelled":
      return { ...state, status: "idle" };
    case "turn.failed":
      return { ...state, status: "idle", error: event.error };
    default:
      return assertNever(event);
  }
}

function settleRequest(state: SessionSnapshot, event: EventOf<"input.resolved">): SessionSnapshot {
  const request = state.pending.find((candidate) => candidate.requestId === event.requestId);
  if (!request) return state;
  const resolution = resolutionOf(event);
  return {
    ...state,
    pending: state.pending.filter((candidate) => candidate !== request),
    resolved: [...state.resolved, { request, resolution }],
  };
}

function appendDelta(message: Message, event: EventOf<"text.delta" | "reasoning.delta">): Message {
  const kind = event.type === "text.delta" ? "text" : "reasoning";
  const parts = message.parts.slice();
  const last = parts.at(-1);
  if (last?.type === kind) parts[parts.length - 1] = { type: kind, text: last.text + event.delta };
  else parts.push({ type: kind, text: event.delta });
  return { ...message, parts };
}

function toolCore(part: ToolPart): Pick<ToolPart, "type" | "toolCallId" | "toolName" | "input" | "asked"> {
  const { type, toolCallId, toolName, input, asked } = part;
  return asked ? { type, toolCallId, toolName, input, asked } : { type, toolCallId, toolName, input };
}

function updateMessage(state: SessionSnapshot, messageId: string, update: (message: Message) => Message) {
  // Deltas almost always belong to the newest message, so search from the end.
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index] as Message;
    if (message.id !== messageId) continue;
    const updated = update(message);
    if (updated === message) return state;
    const messages = state.messages.slice();
    messages[index] = updated;
    return { ...state, messages };
  }
  return state;
}

/** Removes a message (one the server abandoned: its step runs again and streams it anew). */
function dropMessage(state: SessionSnapshot, messageId: string): SessionSnapshot {
  const messages = state.messages.filter((message) => message.id !== messageId);
  return messages.length === state.messages.length ? state : { ...state, messages };
}

function updateToolPart(state: SessionSnapshot, toolCallId: string, update: (part: ToolPart) => ToolPart) {
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index] as Message;
    const partIndex = message.parts.findIndex((part) => part.type === "tool" && part.toolCallId === toolCallId);
    if (partIndex === -1) continue;
    const part = message.parts[partIndex] as ToolPart;
    const updated = update(part);
    if (updated === part) return state;
    const parts: MessagePart[] = message.parts.slice();
    parts[partIndex] = updated;
    return updateMessage(state, message.id, () => ({ ...message, parts }));
  }
  return state;
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown event: ${JSON.stringify(value)}`);
}

/**
 * How an `input.resolved` event settled its request, as a snapshot's settled request holds
 * it: what the event says beyond its envelope and names (`action`, and `value`, `reason`,
 * `reasonCode` where it has them).
 */
export function resolutionOf(event: EventOf<"input.resolved">): ResolvedRequest["resolution"] {
  const { type, seq, sessionId, at, requestId, toolCallId, ...resolution } = event;
  return resolution;
}
