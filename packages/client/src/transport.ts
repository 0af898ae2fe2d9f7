import type { InputResponse, ProtocolEvent, SessionSnapshot, TakenMessage } from "@hitl-kit/protocol";
import type { ConnectionState } from "./client-state.js";

/** A command of wire protocol v1, as a client sends it for one session. */
export type AgentCommand =
  /** `POST /sessions/:id/messages`, with `key` as its `Idempotency-Key` (a fresh one when absent) */
  | { type: "message"; text: string; key?: string }
  /** `POST /sessions/:id/responses` */
  | { type: "responses"; responses: InputResponse[] }
  /** `POST /sessions/:id/cancel` with `{}`, or `{turnId}` to stop that turn only */
  | { type: "cancel"; turnId?: string }
  /** `DELETE /sessions/:id`: the session and everything in it, open requests cancelled first */
  | { type: "delete" };

/** A command's successful answer: its HTTP status (`202`, `200` for a repeated response, `204` for a delete) and JSON body. */
export interface CommandReply {
  /** The HTTP status of the 2xx answer. */
  status: number;
  /** The parsed JSON body; `undefined` when the answer had none (a `204`). */
  body: unknown;
}

/** Where a transport delivers a session's event stream. */
export interface EventSink {
  /** One event, in order. A repeat of an applied seq is harmless: the reducer drops it. */
  event(event: ProtocolEvent): void;
  /** Events that arrived together, in order, applied with one state change (one render, in a UI). */
  events(events: readonly ProtocolEvent[]): void;
  /** The stream's connection changed. */
  connection(state: ConnectionState): void;
  /**
   * Something arrived on the stream (an event, or the server's heartbeat): it is alive.
   * Optional to call; the client reopens a stream that stayed silent longer than a heartbeat
   * when the page wakes up or comes back online.
   */
  heard?(): void;
  /** The stream cannot go on (unknown session, forbidden, undecodable data); it will not reconnect. */
  fail(error: { code: string; message: string; details?: unknown }): void;
}

/** What a transport's stream needs from the client. */
export interface StreamOptions {
  /** The seq of the last event applied, read at every (re)connect for `Last-Event-ID`. */
  lastSeq: () => number;
  /** Where the stream delivers its events, connection changes and fatal failure. */
  sink: EventSink;
}

/**
 * How a client reaches a session: the four things the wire protocol offers, and optionally
 * a fifth (`findTakenMessages`). The default is {@link sseTransport} (HTTP commands, SSE
 * events with reconnect); {@link replayTransport}
 * plays recorded events with no server. Failures are thrown as `ProtocolError`s carrying
 * the server's code, message and details (code `network` when no answer came back).
 */
export interface Transport {
  /**
   * `POST /sessions`, with `key` as its `Idempotency-Key`: created again under the same key,
   * it is the same session. `signal` stops it, resends included.
   */
  createSession(options?: { key?: string; signal?: AbortSignal }): Promise<{ sessionId: string }>;
  /**
   * `GET /sessions/:id`: the newest messages, or with `before` (a snapshot's `before`) the
   * page before them. `signal` aborts it (the client was closed): it stops resending and waiting.
   */
  loadSnapshot(
    sessionId: string,
    page?: { before?: string; limit?: number; signal?: AbortSignal },
  ): Promise<SessionSnapshot>;
  /**
   * `GET /sessions/:id/messages?key=…`: which of the messages sent under these keys the
   * session took (a key not listed was never taken). Optional: a client whose transport has
   * none shows the unsent messages an earlier page kept as not sent, without asking.
   */
  findTakenMessages?(sessionId: string, keys: readonly string[]): Promise<TakenMessage[]>;
  /**
   * Sends one command; resolves with a 2xx answer, throws a `ProtocolError` otherwise (code
   * `aborted` once `signal` aborts: it stops resending and waiting).
   */
  send(sessionId: string, command: AgentCommand, options?: { signal?: AbortSignal }): Promise<CommandReply>;
  /**
   * Opens the event stream after `lastSeq()` and keeps it open (reconnecting if it can)
   * until the returned function is called.
   */
  openStream(sessionId: string, options: StreamOptions): () => void;
}
