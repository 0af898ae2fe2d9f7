import type {
  InputResponse,
  ProtocolEvent,
  ResolutionAction,
  SessionSnapshot,
  SessionStatus,
  TakenMessage,
} from "@hitl-kit/protocol";
import type { BackoffOptions } from "./backoff.js";
import type { RetryOptions } from "./retry.js";
import type { StreamOptions } from "./transport.js";

/**
 * Headers as `fetch` takes them (the DOM's `HeadersInit`, spelled out so a project without
 * the DOM library, a Node one, compiles these types too).
 */
export type HeaderValues = Headers | Record<string, string> | [string, string][];

/** A `fetch`-compatible function. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** The protocol's base, such as `/api/agent` or `http://127.0.0.1:3000/api/agent`. */
  url: string;
  /** The `fetch` to use (default: the global one): to add auth, to test a flaky network, or a fetch handler called in process. */
  fetch?: FetchLike;
  /** Headers sent with every request, or a function read before each one (for a token that refreshes). */
  headers?: HeaderValues | (() => HeaderValues | Promise<HeaderValues>);
  /** The `credentials` of every request (default `same-origin`, so the identity cookie goes along). */
  credentials?: "include" | "omit" | "same-origin";
  /** How event streams wait before reconnecting. */
  reconnect?: BackoffOptions;
  /**
   * How long an event stream may stay silent — no answer, no event, no heartbeat — before
   * it counts as dropped and is reopened (default 45 000 ms: three of the server's 15 s
   * heartbeats; keep it above three `heartbeatMs` if you raise that).
   */
  streamSilenceMs?: number;
  /**
   * How requests safe to send twice are resent after a transient failure (no answer, `503`,
   * `502`, `504`, `408`, a short `429`): reads, answers, `cancelTurn`, messages and session
   * creation (both with an `Idempotency-Key`). Default `{ maxRetries: 6 }` with the backoff
   * of `reconnect`'s defaults; `false` sends each once. `deleteSession` is never resent.
   */
  retry?: RetryOptions | false;
  /**
   * How long one attempt of a request (not an event stream) may go without an answer before
   * it counts as lost: `network`, and resent when safe (default 30 000 ms).
   */
  timeoutMs?: number;
}

/** Per-call options of the {@link ApiClient}'s methods. */
export interface CallOptions {
  /** Aborts the request; it then rejects with an `ApiError` of code `aborted`. */
  signal?: AbortSignal;
  /** Headers for this request only, over the client's. */
  headers?: HeaderValues;
}

/** One session in the list `GET /sessions` answers. */
export interface SessionSummary {
  /** The session's id, for `getSnapshot`, `events` and the commands. */
  sessionId: string;
  /** When it was created (ISO 8601); the list is newest first by this. */
  createdAt: string;
  /** When it last changed (ISO 8601): an event, or a change of its turn's state. */
  updatedAt: string;
  /** The first words of the first message. */
  title?: string;
  /** Where its turn is, as its snapshot says. */
  status: SessionStatus;
  /**
   * How many requests wait for the person: a parked turn's, or questions a running tool
   * asked (its `status` stays `running`). Show the session as waiting for them when it is not 0.
   */
  pending: number;
  /** The seq of its newest event. */
  lastSeq: number;
}

/** A page of the caller's sessions, newest first. */
export interface SessionPage {
  /** At most the page's `limit` sessions, newest first. */
  sessions: SessionSummary[];
  /** Pass it as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** How a request was settled, as `POST /sessions/:id/responses` answers it. */
export interface Resolution {
  /** The request it settled. */
  requestId: string;
  /** How it was settled: the person's `accept`, `decline` or `cancel`, or `expire`. */
  action: ResolutionAction;
  /** The accepted answer, as the server validated it. */
  value?: unknown;
  /** Why it was declined, when the person said. */
  reason?: string;
}

/** The answer to `respond`: `202` when any request settled now, `200` when every response repeated a settled one. */
export interface RespondReply {
  /** `202`: at least one request settled now; `200`: every response repeated a settled one. */
  status: 200 | 202;
  /** Each request's resolution, in the order of the responses (a repeat gets the first resolution). */
  resolutions: Resolution[];
}

/** Options of {@link ApiClient.events}. */
export interface EventsOptions {
  /** Start after this seq (default `0`: from the first event). A dropped stream resumes after the last event received. */
  after?: number;
  /** Ends the iteration (it then returns, without an error). */
  signal?: AbortSignal;
  /** Reconnects in a row without an event (or a heartbeat a second or more after opening) before the iteration throws `network` (default: no limit). */
  maxRetries?: number;
  /** Headers for this stream only, over the client's. */
  headers?: HeaderValues;
}

/** Options of {@link ApiClient.openStream}: where to resume and where events go. */
export interface OpenStreamOptions extends StreamOptions {
  /** Reconnects in a row without an event (or a heartbeat a second or more after opening) before the sink is failed with `network` (default: no limit). */
  maxRetries?: number;
}

/**
 * The HTTP client of the wire protocol: one method per route of the fetch handler, typed
 * results, and every failure thrown as an {@link ApiError} carrying the wire code and
 * the HTTP status. Create it with {@link createApiClient}. Every state-changing request
 * is JSON (`Content-Type: application/json`), as the server's CSRF rule wants; a browser
 * adds `Origin` by itself.
 */
export interface ApiClient {
  /** The protocol's base, without a trailing slash. */
  readonly url: string;
  /**
   * `POST /sessions`: a new session owned by the caller. It goes with `key` as its
   * `Idempotency-Key` (a fresh one when absent), so resending it after a lost answer gets
   * the same session, not a second one. @throws `session_limit`, `rate_limited`, …
   */
  createSession(options?: CallOptions & { key?: string }): Promise<{ sessionId: string }>;
  /** `GET /sessions`: the caller's sessions, newest first; `limit` 1–100 (default 50), `cursor` from a previous page. */
  listSessions(page?: { limit?: number; cursor?: string } & CallOptions): Promise<SessionPage>;
  /**
   * `GET /sessions/:id`: the session's snapshot with its newest `limit` messages (1–200,
   * default 50); with `before` (a snapshot's `before`), the page before those. @throws `not_found`
   */
  getSnapshot(sessionId: string, page?: { before?: string; limit?: number } & CallOptions): Promise<SessionSnapshot>;
  /**
   * `GET /sessions/:id/messages?key=…`: which of the messages sent under these
   * `Idempotency-Key`s the session took, and the turn each started, however long ago (a
   * key not listed was never taken). More keys than one read takes (`MAX_TAKEN_KEYS`, 20)
   * are asked in several. @throws `not_found`, `bad_request` (a key that is no `Idempotency-Key`)
   */
  findTakenMessages(sessionId: string, keys: readonly string[], options?: CallOptions): Promise<TakenMessage[]>;
  /**
   * `POST /sessions/:id/messages`: starts a turn. Sent with `key` as its `Idempotency-Key`
   * (a fresh one when absent; one in `options.headers` wins), so resending it after a
   * transient failure starts no second turn; pass the same `key` to send it again yourself.
   * `repeated` is true when the server had taken a message with this key before (`200`):
   * `turnId` is then the turn it started back then.
   * @throws `turn_running`, `not_found`, `bad_request`
   */
  sendMessage(
    sessionId: string,
    text: string,
    options?: CallOptions & { key?: string },
  ): Promise<{ turnId: string; repeated: boolean }>;
  /**
   * `POST /sessions/:id/responses`: answers requests (1 to 100, each a different one).
   * Sending the same response again is safe: it answers `200` with the first resolution.
   * @throws `invalid_answer` (the issues in `details`), `already_resolved`, `not_found`
   */
  respond(sessionId: string, responses: InputResponse[], options?: CallOptions): Promise<RespondReply>;
  /** Cancels one request (`respond` with action `cancel`): its tool call ends as cancelled. */
  cancelRequest(sessionId: string, requestId: string, options?: CallOptions): Promise<RespondReply>;
  /**
   * `POST /sessions/:id/cancel`: stops the running or parked turn; open requests end as
   * cancelled. With `turnId`, only that turn, if it is still the current one: a cancel
   * resent after a dropped connection then never stops a later turn.
   */
  cancelTurn(sessionId: string, options?: CallOptions & { turnId?: string }): Promise<void>;
  /** `DELETE /sessions/:id`: the session and everything in it (a running turn is stopped first). */
  deleteSession(sessionId: string, options?: CallOptions): Promise<void>;
  /**
   * `GET /sessions/:id/events`: the session's events after `after`, then live ones, in
   * order, each once. A dropped stream reconnects with backoff and resumes after the last
   * event received; an answer retrying cannot fix throws (`not_found`, `forbidden`, …).
   */
  events(sessionId: string, options?: EventsOptions): AsyncIterableIterator<ProtocolEvent>;
  /**
   * The event stream as a sink, for a store: events in paced batches, connection changes,
   * and one `fail` when it cannot go on. Resumes after `lastSeq()` at every reconnect.
   * Returns the function that closes it.
   */
  openStream(sessionId: string, options: OpenStreamOptions): () => void;
}
