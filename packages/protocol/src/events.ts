import type { EVENT_TYPES } from "./event-types.js";
import type { InputRequest, ResolutionAction } from "./requests.js";

/** Who wrote a message. */
export type MessageRole = "user" | "assistant";

/** How a tool call ended. Exactly one `tool.result` with one of these follows every `tool.called`. */
export type ToolOutcome = "ok" | "error" | "declined" | "cancelled" | "expired";

/** The code and message of a failed turn. */
export interface TurnError {
  code: string;
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
type Envelope<T extends EventType> = {
  /** Per session, strictly increasing from 1; the SSE `id`. */
  seq: number;
  type: T;
  sessionId: string;
} & (T extends StreamedEventType ? { /** ISO 8601. */ at?: string } : { /** ISO 8601. */ at: string });

/** The payload of each event type, beyond the {@link Envelope}. */
interface Payloads {
  "session.created": Record<never, never>;
  "turn.started": { turnId: string; cause: "message" | "responses" };
  "message.started": { messageId: string; role: MessageRole };
  "text.delta": { messageId: string; delta: string };
  "reasoning.delta": { messageId: string; delta: string };
  "message.completed": { messageId: string };
  /** A message cut off mid-stream by a crash: drop it; the restarted step writes the reply again. */
  "message.abandoned": { messageId: string };
  "tool.called": { messageId: string; toolCallId: string; toolName: string; input: unknown };
  "input.requested": { requests: InputRequest[] };
  "input.resolved": {
    requestId: string;
    toolCallId: string;
    action: ResolutionAction;
    value?: unknown;
    reason?: string;
  };
  "tool.result": { toolCallId: string; outcome: ToolOutcome; output: unknown };
  "turn.waiting": { turnId: string; requestIds: string[] };
  "turn.completed": { turnId: string };
  "turn.failed": { turnId: string; error: TurnError };
  "turn.cancelled": { turnId: string };
}

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The event of one type. */
export type EventOf<T extends EventType> = Flat<Envelope<T> & Payloads[T]>;

/** One event of a session's ordered, durable log: a discriminated union on `type`. */
export type ProtocolEvent = { [T in EventType]: EventOf<T> }[EventType];

/** What an event carries beyond the envelope (`seq`, `sessionId`, `at`): what a store is asked to append. */
export type EventInput = { [T in EventType]: Flat<{ type: T } & Payloads[T]> }[EventType];
