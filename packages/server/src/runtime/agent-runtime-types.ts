import type { InputResponse, ProtocolEvent, ReasonCode, SessionSnapshot, TakenMessage } from "@hitl-kit/protocol";
import type { SnapshotQuery } from "../store/project-events.js";
import type { ListSessionsOptions, SessionSummary } from "../store/records.js";
import type { EventListener } from "./event-hub.js";

/** How a settled request was resolved, as answered to `POST /responses`. */
export interface ResolutionView {
  /** The settled request, as the response named it. */
  requestId: string;
  /** What settled it: `accept`, `decline`, `cancel` or `expire`. */
  action: string;
  /** For `accept`, the accepted answer (as the answer schema checked it); absent otherwise. */
  value?: unknown;
  /** The note the settling response gave, if any (or why the runtime cancelled the request). */
  reason?: string;
  /** For a cancel the runtime made, the kind of its reason (see `ReasonCode`). */
  reasonCode?: ReasonCode;
}

/** A new session, or with `repeated`, the one an earlier creation under the same key made. */
export interface CreatedSession {
  /** The session's id (`ses_…`). */
  sessionId: string;
  /** The creation was a repeat (same owner, same `Idempotency-Key`): no second session was made. */
  repeated: boolean;
}

/** A message's turn: `repeated` when the message was a repeat of one sent under the same key. */
export interface SentMessage {
  /** The turn the message started (for a repeat, the one the first sending started). */
  turnId: string;
  /** The message was a repeat (same `Idempotency-Key`, same text): no second turn was started. */
  repeated: boolean;
}

/** The answer to a batch of responses: `202` when any settled now, `200` when all were repeats. */
export interface RespondResult {
  /** `202` when this call settled at least one request, `200` when every one was a repeat of its settlement. */
  status: 200 | 202;
  /** The resolution of each answered request, in the order of the responses. */
  resolutions: ResolutionView[];
}

/** What {@link AgentRuntime.health} finds. */
export interface RuntimeHealth {
  /** Whether the instance takes new turns now. */
  ok: boolean;
  /**
   * `serving`; `starting` (its store not reached or migrated yet: `ready` has not resolved,
   * or its start is tried again); `failed` (its start failed for good — a wrong password, a
   * schema a newer version migrated — and is not tried again: fix the cause, then restart
   * the instance; the log says why); `closing` (`close()` was called); `store_unavailable`
   * (started, but its store does not answer now: the log says why).
   */
  status: "serving" | "starting" | "failed" | "closing" | "store_unavailable";
}

/** The embedded runtime: sessions, turns, parked requests and their one result each. */
export interface AgentRuntime {
  /**
   * Resolves once the runtime serves: its store reached and migrated, and the sessions a
   * previous process left running found. Those are resumed in the background, 32 at a time,
   * each until its turn parks or ends (`idle()` waits for them all), so a restart serves at
   * once however long the resumed turns take. Rejects when the runtime could not start
   * (a store it cannot reach, say), before serving; a runtime that is not closed then keeps
   * trying in the background (after 100 ms, backing off to 5 s), so once the store is back
   * it streams other instances' events, renews leases and recovers turns without a restart.
   */
  readonly ready: Promise<void>;
  /**
   * Creates a session owned by `owner` (the principal the fetch handler identified). With a
   * `key` (the client's `Idempotency-Key`), the same owner creating again under the same key
   * gets the same session with `repeated: true`, so a creation whose answer was lost can be
   * sent again. The session's id is derived from the owner and the key, so use a key nobody
   * can guess (the client sends 128 random bits).
   * @throws `session_limit` when the owner already has `maxSessionsPerOwner` sessions
   */
  createSession(options?: { owner?: string; key?: string }): Promise<CreatedSession>;
  /** A page of sessions, newest first; `owner` narrows it to one principal's. */
  listSessions(options?: ListSessionsOptions): Promise<SessionSummary[]>;
  /** A session's summary and owner, or `undefined` when there is no such session. */
  getSessionInfo(sessionId: string): Promise<(SessionSummary & { owner?: string }) | undefined>;
  /**
   * Deletes a session: a running turn is stopped and open requests are cancelled — each
   * call with its one result, which live streams receive — then every record of it is
   * removed and its streams end. @throws `not_found`
   */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * The session as the person sees it, with a page of its newest messages (or those
   * before `page.before`, a previous snapshot's `before` as it is), from the store's
   * projection. Settles expired requests first.
   * @throws `not_found`; `bad_request` for a `before` no snapshot gives
   */
  getSnapshot(sessionId: string, page?: SnapshotQuery): Promise<SessionSnapshot>;
  /**
   * Which of these `Idempotency-Key`s a person's message in the session was sent with, and
   * the turn each started, however long ago (what `sendMessage` answers as a repeat): a
   * page that kept unsent messages finds out which the server took. Each key is listed
   * once, in the order asked; a key not listed was never taken. @throws `not_found`
   */
  findTakenMessages(sessionId: string, keys: readonly string[]): Promise<TakenMessage[]>;
  /** Events after `afterSeq`, in order. Settles expired requests first. @throws `not_found` */
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<ProtocolEvent[]>;
  /** Listens to a session's new events in this process; `onEnd` is called when the session is deleted. */
  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void;
  /**
   * Starts a turn from a person's message. With a `key` (the client's `Idempotency-Key`,
   * named in the `turn.started` event), the same message sent again under the same key
   * starts no second turn: it answers the first one's `turnId` with `repeated: true`. A
   * session remembers the keys of its last 8 keyed messages. Requests waiting for the person
   * are cancelled first (`whileParked`): a parked turn's, or a running tool's question, whose
   * turn is stopped and has ended when this resolves.
   * @throws `not_found`, `turn_running` (a turn runs and asks nothing of the person, or
   * `whileParked: "reject"`), `bad_request` (the key was used for another text)
   */
  sendMessage(sessionId: string, text: string, options?: { key?: string }): Promise<SentMessage>;
  /** Settles requests. @throws `not_found`, `already_resolved`, `invalid_answer`, `bad_request` */
  respond(sessionId: string, responses: InputResponse[]): Promise<RespondResult>;
  /**
   * Stops the session's turn: open requests and unfinished calls end as cancelled. A turn
   * another instance drives is waited for until it has stopped (a dead instance's: until its
   * lease lapses, then it is ended here). With `turnId`, only that turn is stopped, if it is
   * still the session's running or parked one; otherwise nothing changes.
   */
  cancel(sessionId: string, options?: { turnId?: string }): Promise<void>;
  /**
   * Resolves when nothing more happens without the person: no turn is being driven, or each
   * one that is waits for the answer to a question its tools asked (`ctx.ask`), as a parked
   * turn waits for its requests; and no session left running waits to be resumed. For tests.
   */
  idle(): Promise<void>;
  /**
   * Whether this instance takes new turns now, for a balancer's readiness probe: started,
   * not closing, and its store answering a read. Serve it on a route of your own, `200` when
   * `ok` and `503` otherwise; a closing instance then leaves the balancer before it stops.
   * @example
   * app.get("/ready", async (_req, res) => {
   *   const health = await runtime.health();
   *   res.status(health.ok ? 200 : 503).json(health);
   * });
   */
  health(): Promise<RuntimeHealth>;
  /** Where the runtime logs (its `logger` option, or `console`); the fetch handler logs there too by default. */
  readonly logger: Pick<Console, "warn" | "error">;
  /**
   * Stops timers and waits for running turns, at most `timeoutMs` (default 10 000). Meanwhile
   * it starts no turn: a new message, and an answer to a parked turn, reject with
   * `unavailable` (503), while a question that a running tool waits on (`ctx.ask`) is still
   * answered. Turns still running then are left as a crash leaves them: each stops where it
   * is (its model call is aborted, its streamed text not kept) and its tools' signals abort. A
   * tool that ends within `abortGraceMs` gets what it returned or threw as its result, which
   * is what happened; one still running after that is left without a result. The next start
   * or another instance resumes the turn, giving such a call a result that says it may or may
   * not have completed, so every tool call still gets one result. Then every
   * event stream of this runtime ends, so browsers reconnect (to another instance). The
   * store stays open; once closed, every call that reaches it rejects with `unavailable`. It
   * resolves even when the runtime never started (`ready` rejected), so a shutdown goes on
   * to close the store. Calling it again answers the first call's promise.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}
