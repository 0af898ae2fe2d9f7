import type { EVENT_TYPES } from "./event-types.js";
import type { InputRequest, ReasonCode, ResolutionAction } from "./requests.js";

/** Who wrote a message. */
export type MessageRole = "user" | "assistant";

/** How a tool call ended. Exactly one `tool.result` with one of these follows every `tool.called`. */
export type ToolOutcome = "ok" | "error" | "declined" | "cancelled" | "expired";

/** The code and message of a failed turn. */
export interface TurnError {
  /** A machine-readable code for the failure. */
  code: string;
  /** A human-readable description of the failure. */
  message: string;
}

/** The event types of the wire protocol. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The events a model streams, one per few tokens: the wire leaves out their time. */
export type StreamedEventType = "text.delta" | "reasoning.delta";

/**
 * What every event carries: its place in the session's log, the session, and when it was
 * appended — always in the store; a client does not receive the time of streamed deltas.
 */
export type EventEnvelope<T extends EventType> = {
  /** Per session, strictly increasing from 1; the SSE `id`. */
  seq: number;
  type: T;
  sessionId: string;
} & (T extends StreamedEventType ? { /** ISO 8601. */ at?: string } : { /** ISO 8601. */ at: string });

/** The payload of each event type, beyond the {@link EventEnvelope}: `EventPayloads["tool.result"]` is one. */
export interface EventPayloads {
  /** The session was created; it carries nothing else. */
  "session.created": Record<never, never>;
  /**
   * A turn began, started by a person's message or by answers to parked requests. A message
   * sent with an `Idempotency-Key` names it here, so its sender knows the message was taken
   * even when the answer to its `POST` was lost.
   */
  "turn.started": { turnId: string; cause: "message" | "responses"; idempotencyKey?: string };
  /**
   * A message began; its parts follow as deltas and tool calls. A person's message sent
   * with an `Idempotency-Key` carries it, so its client knows the message in the history.
   */
  "message.started": { messageId: string; role: MessageRole; idempotencyKey?: string };
  /** More text of a message: `delta` is appended to its text part. */
  "text.delta": { messageId: string; delta: string };
  /** More visible reasoning of a message: `delta` is appended to its reasoning part. */
  "reasoning.delta": { messageId: string; delta: string };
  /** A message is complete. */
  "message.completed": { messageId: string };
  /** A message cut off mid-stream by a crash: drop it; the restarted step writes the reply again. */
  "message.abandoned": { messageId: string };
  /** The model called a tool from message `messageId`, with `input` as its arguments. */
  "tool.called": { messageId: string; toolCallId: string; toolName: string; input: unknown };
  /** Tool calls parked on people: one open request each. */
  "input.requested": { requests: InputRequest[] };
  /**
   * A request was settled: `value` is the answer of an `accept`, `reason` an optional note,
   * and `reasonCode` the kind of a reason the server gave for a cancel.
   */
  "input.resolved": {
    requestId: string;
    toolCallId: string;
    action: ResolutionAction;
    value?: unknown;
    reason?: string;
    reasonCode?: ReasonCode;
  };
  /** The one result of a tool call: how it ended and its output. */
  "tool.result": { toolCallId: string; outcome: ToolOutcome; output: unknown };
  /** The turn is parked on the open requests `requestIds`. */
  "turn.waiting": { turnId: string; requestIds: string[] };
  /** The turn ended normally. */
  "turn.completed": { turnId: string };
  /** The turn ended with `error`. */
  "turn.failed": { turnId: string; error: TurnError };
  /** The turn was cancelled. */
  "turn.cancelled": { turnId: string };
}

/**
 * The event of one type: its {@link EventEnvelope} and its {@link EventPayloads} entry, as one object type.
 * @typeParam T - The event type.
 * @typeParam Event - Leave it at its default; it only names the intersection the object type is built from.
 */
export type EventOf<T extends EventType, Event = EventEnvelope<T> & EventPayloads[T]> = {
  [K in keyof Event]: Event[K];
} & {};

/** One event of a session's ordered, durable log: a discriminated union on `type`. */
export type ProtocolEvent = { [T in EventType]: EventOf<T> }[EventType];

/** What an event carries beyond the envelope (`seq`, `sessionId`, `at`): what a store is asked to append. */
export type EventInput = {
  [T in EventType]: { [K in keyof ({ type: T } & EventPayloads[T])]: ({ type: T } & EventPayloads[T])[K] } & {};
}[EventType];
