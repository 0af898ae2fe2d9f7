import type { MessageRole, ToolOutcome, TurnError } from "./events.js";
import type { InputRequest, ReasonCode, ResolutionAction } from "./requests.js";

/** Where a session is: no turn running, a turn running, or a turn parked on people. */
export type SessionStatus = "idle" | "running" | "waiting";

/** Text the model or the person wrote. */
export interface TextPart {
  /** Discriminant of the part. */
  type: "text";
  /** The text so far (all of it once the message is complete). */
  text: string;
}

/** The model's visible reasoning. */
export interface ReasoningPart {
  /** Discriminant of the part. */
  type: "reasoning";
  /** The reasoning so far. */
  text: string;
}

/**
 * A tool call, by state: `running` (called, or answered and executing), `awaiting-input`
 * (parked on `requestId`), or `done` (its one result is in). `asked` lists the requests of
 * the call before `requestId`, oldest first: its approval, and the earlier questions of a
 * tool that asks while it runs (`ctx.ask`); absent when it had none. Written out in full,
 * so that an editor shows each state's fields.
 */
export type ToolPart =
  | {
      type: "tool";
      toolCallId: string;
      toolName: string;
      input: unknown;
      asked?: string[];
      state: "running";
      requestId?: string;
    }
  | {
      type: "tool";
      toolCallId: string;
      toolName: string;
      input: unknown;
      asked?: string[];
      state: "awaiting-input";
      requestId: string;
    }
  | {
      type: "tool";
      toolCallId: string;
      toolName: string;
      input: unknown;
      asked?: string[];
      state: "done";
      requestId?: string;
      outcome: ToolOutcome;
      output: unknown;
    };

/** One part of a message. */
export type MessagePart = TextPart | ReasoningPart | ToolPart;

/** A message of the transcript, as the person sees it. */
export interface Message {
  /** The message's id, as in its `message.started` event. */
  id: string;
  /** Who wrote it. */
  role: MessageRole;
  /** `streaming` until its `message.completed` event. */
  status: "streaming" | "complete";
  /** Its text, reasoning and tool calls, in order. */
  parts: MessagePart[];
  /** The `Idempotency-Key` a person's message was sent with: its client knows it is in the history. */
  idempotencyKey?: string;
  /** When it started, as its `message.started` event's `at` (ISO 8601): for day separators and "3 weeks ago". */
  at?: string;
}

/** A settled request and how it was settled, so a transcript can show the answer after a reload. */
export interface ResolvedRequest {
  /** The request as it was asked. */
  request: InputRequest;
  /** How it was settled: the action, the accepted value, the reason given (and its kind, for a cancel the server made). */
  resolution: { action: ResolutionAction; value?: unknown; reason?: string; reasonCode?: ReasonCode };
}

/**
 * `GET /sessions/:id`: the session as of `lastSeq` — its status, its open requests and its
 * newest messages. History is paged: `before` is there when older messages exist, and
 * `GET /sessions/:id?before=<before>` answers the page before these.
 */
export interface SessionSnapshot {
  /** The session's id. */
  sessionId: string;
  /** Whether a turn is running, parked on people, or none is. */
  status: SessionStatus;
  /** The newest messages (a page), oldest first. */
  messages: Message[];
  /** The open requests, in the order they were asked. */
  pending: InputRequest[];
  /** The settled requests of these messages' tool calls, oldest first. */
  resolved: ResolvedRequest[];
  /** The seq of the last event folded in (`0` for none); a stream resumes after it. */
  lastSeq: number;
  /** Why the last turn failed, until the next turn starts. */
  error?: TurnError;
  /** Where the page before `messages` ends: pass it as `?before=`. Absent when `messages` starts at the first. */
  before?: string;
}
