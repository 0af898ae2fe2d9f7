import { createHash } from "node:crypto";
import {
  type EventInput,
  type InputResponse,
  ProtocolError,
  type ProtocolEvent,
  type SessionSnapshot,
} from "@hitl-kit/protocol";
import { jsonEqual } from "@hitl-kit/protocol/internal";
import type { SnapshotPage } from "../store/project-events.js";
import type {
  ListSessionsOptions,
  RequestRecord,
  SessionRecord,
  SessionSummary,
  WriteBatch,
} from "../store/records.js";
import { idleSession } from "../store/records.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { LeaseLost } from "./coordination.js";
import { cutText } from "./cut-text.js";
import type { EventListener } from "./event-hub.js";
import { ExpiryTimer } from "./expiry-timer.js";
import { randomId } from "./ids.js";
import { failureLine, logScope } from "./logged-error.js";
import { MAX_TIMER_MS } from "./model-step.js";
import type { PlanSettlementInput } from "./plan-settlement.js";
import { RetentionSweeper } from "./retention-sweeper.js";
import { type AgentRuntimeOptions, RuntimeCore } from "./runtime-core.js";
import { TurnDriver } from "./turn-driver.js";

/** How a settled request was resolved, as answered to `POST /responses`. */
export interface ResolutionView {
  /** The settled request, as the response named it. */
  requestId: string;
  /** What settled it: `accept`, `decline`, `cancel` or `expire`. */
  action: string;
  /** For `accept`, the accepted answer (as the answer schema checked it); absent otherwise. */
  value?: unknown;
  /** The note the settling response gave, if any. */
  reason?: string;
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
   * or its start is tried again); `closing` (`close()` was called); `store_unavailable`
   * (started, but its store does not answer now: the log says why).
   */
  status: "serving" | "starting" | "closing" | "store_unavailable";
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
   * before `page.before`), from the store's projection. Settles expired requests first.
   * @throws `not_found`
   */
  getSnapshot(sessionId: string, page?: SnapshotPage): Promise<SessionSnapshot>;
  /** Events after `afterSeq`, in order. Settles expired requests first. @throws `not_found` */
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<ProtocolEvent[]>;
  /** Listens to a session's new events in this process; `onEnd` is called when the session is deleted. */
  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void;
  /**
   * Starts a turn from a person's message. With a `key` (the client's `Idempotency-Key`,
   * named in the `turn.started` event), the same message sent again under the same key
   * starts no second turn: it answers the first one's `turnId` with `repeated: true`. A
   * session remembers the keys of its last 8 keyed messages.
   * @throws `not_found`, `turn_running`, `bad_request` (the key was used for another text)
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
  /** Resolves when no turn is being driven and no session left running waits to be resumed (for tests and shutdown). */
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
   * answered. Turns still running then are left as a crash leaves them: each stops without
   * writing more (its tools are aborted, and given `abortGraceMs` to stop), and the next start
   * or another instance resumes it, every tool call still getting one result. Then every
   * event stream of this runtime ends, so browsers reconnect (to another instance). The
   * store stays open; once closed, every call that reaches it rejects with `unavailable`. It
   * resolves even when the runtime never started (`ready` rejected), so a shutdown goes on
   * to close the store. Calling it again answers the first call's promise.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Creates the runtime. Tools are checked here: two tools with one name, a server tool
 * without an executor, or a tool with both an executor and client resolution throw an
 * error that names the tool.
 * @example
 * const runtime = createAgentRuntime({
 *   model: anthropic("claude-sonnet-4-5"),
 *   tools: [pickTemplate, implement(refund, async (input) => payments.refund(input))],
 *   store: sqliteStore(".data/hitl.sqlite"),
 * });
 */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const core = new RuntimeCore(options);
  const { store, lock, coordination } = core;
  const expiry = new ExpiryTimer(
    store,
    (sessionId, requestId) => expireRequest(sessionId, requestId),
    (error) => core.trouble("settling expired requests failed (tried again every second)", error),
  );
  core.expiry = expiry;
  const driver = new TurnDriver(core);
  coordination.onAbort((sessionId, cause) => {
    if (cause.kind === "lease_lost") {
      driver.abort(sessionId, new LeaseLost(sessionId));
      return;
    }
    // A request can arrive late: it stops the turn it names, never a later one.
    if (!driver.running(sessionId)) return;
    void store
      .getSession(sessionId)
      .then((session) => {
        const live = session?.status === "running" || session?.status === "resuming";
        if (live && session.turnId === cause.turnId) driver.abort(sessionId);
      })
      .catch((error: unknown) =>
        core.logger.error(
          ...failureLine(`hitl-kit: ${logScope(sessionId, cause.turnId)}: could not stop the turn`, error),
        ),
      );
  });

  /**
   * Stops the session's running turn: no `wait` when this instance may end it itself (it
   * drives no turn of it and no other instance does: it took the lease), else what to wait
   * for, outside the session's lock, before looking again — this instance's driver ending
   * the turn, or a moment while the instance that drives it is asked to. A dead instance
   * cannot answer; once its lease lapses, a look takes the lease.
   */
  async function stopDriver(session: SessionRecord): Promise<{ wait?: Promise<void> }> {
    const { sessionId, turnId } = session;
    if (driver.abort(sessionId)) return { wait: driver.done(sessionId) };
    if (!coordination.shared || !turnId || (await coordination.turns.acquire(sessionId))) return {};
    await coordination.requestAbort(sessionId, turnId);
    return { wait: delay(RETRY_MS) };
  }

  /**
   * Runs `section` under the session's lock (`withSession`, or the lock alone) until it
   * asks for no more waiting: a section that needs the turn's driver to stop first returns
   * `{ wait }`, and the wait happens outside the lock, which the driver needs.
   */
  async function untilStopped(
    locked: (
      section: (session: SessionRecord) => Promise<{ wait?: Promise<void> }>,
    ) => Promise<{ wait?: Promise<void> }>,
    section: (session: SessionRecord) => Promise<{ wait?: Promise<void> }>,
  ): Promise<void> {
    for (;;) {
      const { wait } = await locked(section);
      if (!wait) return;
      await wait;
    }
  }

  /**
   * Settles open requests under the session's lock, resuming the turn when they were the
   * last ones it waited for; answers the settled records. `open` is the session's open
   * requests when the caller has just read them.
   */
  async function settleLocked(
    session: SessionRecord,
    items: PlanSettlementInput[],
    open?: RequestRecord[],
  ): Promise<RequestRecord[]> {
    const { settlements, stepCalls } = await core.planSettlements(session, items);
    const settledIds = new Set(items.map((item) => item.record.requestId));
    open ??= await store.getOpenRequests(session.sessionId);
    const resumes = session.status === "waiting" && open.every((request) => settledIds.has(request.requestId));
    const approved = settlements.flatMap((settlement) => (settlement.approvedTool ? [settlement.approvedTool] : []));
    const events: EventInput[] = settlements.flatMap((settlement) => settlement.events);
    if (resumes) events.push({ type: "turn.started", turnId: session.turnId!, cause: "responses" });
    // When the last answer leaves nothing to run, the step closes in the same write.
    const closing = resumes ? core.closeStep(stepCalls) : undefined;
    const result = await core.commit(session.sessionId, {
      events,
      requests: settlements.map((settlement) => settlement.request),
      toolCalls: settlements.map((settlement) => settlement.call),
      requireOpen: [...settledIds],
      ...(closing?.transcript ? { transcript: closing.transcript } : {}),
      ...(resumes || approved.length > 0
        ? {
            session: {
              ...closing?.session,
              // A cancel kept for this turn before it parked (its instance died before it saw
              // the turn parked) is over: the person answered what the turn asks, so it goes on.
              ...(resumes ? { status: "resuming" as const, cancelRequested: undefined } : {}),
              ...(approved.length > 0 ? { approvedTools: [...new Set([...session.approvedTools, ...approved])] } : {}),
            },
          }
        : {}),
    });
    if (!result.ok) throw new ChangedMeanwhile(`Settlement refused (${result.reason}) under the session lock.`);
    if (resumes) driver.kick(session.sessionId);
    return settlements.map((settlement) => settlement.request);
  }

  async function expireDueLocked(session: SessionRecord): Promise<SessionRecord> {
    const now = Date.now();
    // Alone on its store, the runtime knows every request's expiry: most sessions are read without a look.
    if (!coordination.shared && !expiry.mayHaveDue(now)) return session;
    const due = (await store.getOpenRequests(session.sessionId)).filter(
      (record) => record.expiresAt !== undefined && record.expiresAt <= now,
    );
    if (due.length === 0) return session;
    await settleLocked(
      session,
      due.map((record) => ({ record, cause: { action: "expire" } })),
    );
    return core.requireSession(session.sessionId);
  }

  function expireRequest(sessionId: string, requestId: string): Promise<void> {
    return lock.run(sessionId, async () => {
      const session = await store.getSession(sessionId);
      const record = await store.getRequest(sessionId, requestId);
      if (!session || record?.state !== "open") return;
      await settleLocked(session, [{ record, cause: { action: "expire" } }]);
    });
  }

  /**
   * Runs `section` under the session's lock, with the session (its due requests expired). A
   * section whose settlement the store refused runs again once, from a fresh read: the
   * session changed meanwhile, which its lock keeps out unless the lock's connection dropped
   * (the database let the lock go), and the store's guards refused the write instead.
   */
  const withSession = async <T>(sessionId: string, section: (session: SessionRecord) => Promise<T>): Promise<T> => {
    const once = () =>
      lock.run(sessionId, async () => section(await expireDueLocked(await core.requireSession(sessionId))));
    try {
      return await once();
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile)) throw error;
      return once();
    }
  };

  /** The session once the results of calls that finished here while the store was away are written (see `writeFinished`). */
  const withFinished = async (session: SessionRecord) =>
    (await driver.writeFinished(session)) ? core.requireSession(session.sessionId) : session;

  function deleteSession(sessionId: string): Promise<void> {
    const locked = (section: (session: SessionRecord) => Promise<{ wait?: Promise<void> }>) =>
      lock.run(sessionId, async () => section(await core.requireSession(sessionId)));
    return untilStopped(locked, async (session) => {
      // The driver ends an aborted turn itself, giving every unfinished call its result.
      if (session.status !== "idle" && driver.abort(sessionId)) return { wait: driver.done(sessionId) };
      if (session.status === "running" || session.status === "resuming") {
        const stopping = await stopDriver(session);
        if (stopping.wait) return stopping;
      }
      if (session.status !== "idle") {
        const ending = await withFinished(session);
        await core.mustCommit(sessionId, await core.endTurnBatch(ending, { type: "turn.cancelled" }, deletedReason));
      }
      await store.deleteSession(sessionId);
      driver.forget(sessionId);
      core.hub.end(sessionId);
      return {};
    });
  }

  const sweeper =
    options.deleteIdleAfter === undefined
      ? undefined
      : new RetentionSweeper(
          store,
          options.deleteIdleAfter,
          (sessionId) =>
            deleteSession(sessionId).catch((error: unknown) => {
              if (!(error instanceof ProtocolError)) {
                core.logger.error(...failureLine(`hitl-kit: could not delete ${sessionId}`, error));
              }
            }),
          (error) => core.trouble("deleting idle sessions failed (the next sweep tries again)", error),
        );

  /** Picks up one session a previous process (or a dead instance) left running. */
  const recover = async (sessionId: string) => {
    // A turn another live instance holds is not left over: its lease says so.
    if (driver.running(sessionId) || !(await coordination.turns.acquire(sessionId))) return;
    // The driver gives the lease up when it stops; until it starts, it is this section's to give up.
    const releaseOnFailure = (error: unknown) =>
      coordination.turns.release(sessionId).then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    await lock
      .run(sessionId, async () => {
        const session = await core.requireSession(sessionId);
        if (session.status !== "running" && session.status !== "resuming") return undefined;
        // A crash mid-stream leaves a message cut off. Its step is not in the transcript, so the
        // driver runs it again and streams a new message; the cut-off one is abandoned, and
        // clients drop it rather than show its text twice. The driver's first write carries
        // these events, so a recovered session costs one write.
        return (await core.cutOffBatch(session))?.events ?? [];
      })
      .then((before) => {
        if (!before) return coordination.turns.release(sessionId);
        // The turn holds its place until it parks or ends: a restart after a crash resumes a
        // bounded number of turns at a time, not every left-over model call at once.
        driver.kick(sessionId, before);
        return driver.done(sessionId);
      }, releaseOnFailure);
  };
  // Many sessions, a bounded number at a time, in the background: the runtime serves
  // meanwhile, so a restart is not down for as long as the longest resumed turn runs. A
  // closing runtime picks up no more. A pass that finds one still under way (with several
  // instances, they repeat) leaves it to it; one that fails is tried again.
  let closing = false;
  let recovering: Promise<void> | undefined;
  let recoverAgain: ReturnType<typeof setTimeout> | undefined;
  /** Finds the sessions left running and starts resuming them; resolves once they are found. */
  const recoverAll = async () => {
    if (recovering) return;
    const left = await store.listSessionsToRecover();
    if (recovering || closing) return;
    if (left.length > 0) {
      core.logger.warn(
        `hitl-kit: resuming ${left.length} ${left.length === 1 ? "turn" : "turns"} left running by a server that stopped (this one before a restart, or an instance whose lease lapsed), ${RECOVERY_CONCURRENCY} at a time.`,
      );
    }
    recovering = eachBounded(left, RECOVERY_CONCURRENCY, recover, () => closing)
      .catch((error: unknown) => {
        core.trouble("recovering turns failed (it tries again)", error);
        recoverAgain = setTimeout(() => void recoverAll().catch(() => {}), RECOVERY_RETRY_MS);
        recoverAgain.unref?.();
      })
      .finally(() => {
        recovering = undefined;
      });
  };

  let orphans: ReturnType<typeof setInterval> | undefined;
  // What runs in the background. An attempt that failed (the store could not be reached) runs
  // again: the coordination's start is idempotent, and what follows recovery runs once.
  let started = false;
  const start = async () => {
    await coordination.start();
    await recoverAll();
    started = true;
    if (closing) return;
    expiry.schedule();
    sweeper?.start();
    // With several instances, one that dies leaves its turns to the others once their leases lapse,
    // and its requests' expiries: the timer reads the earliest again, which the others opened too.
    if (coordination.recoverEvery !== undefined) {
      orphans = setInterval(() => {
        expiry.schedule();
        void recoverAll().catch((error: unknown) => core.trouble("recovering turns failed", error));
      }, coordination.recoverEvery);
      orphans.unref?.();
    }
  };
  const ready = start();
  // `ready` rejects with the first failure, for an app that awaits it; one that goes on has the
  // start tried again (100 ms, doubling to 5 s) until it succeeds or the runtime closes, so a
  // database that comes up later gets its fan-out, heartbeat, recovery and expiry. What
  // trying again cannot fix (a schema a newer version migrated) is not tried again.
  let starting = ready;
  let startAgain: ReturnType<typeof setTimeout> | undefined;
  const retryStart = (tries: number) => (error: unknown) => {
    if (closing) return;
    const lasting = error instanceof StoreUnavailable && error.lasting;
    // The first failure is `ready`'s to tell (an app that awaits it exits with its own words).
    if (tries > 0) core.trouble(lasting ? "starting failed for good" : "starting failed (it tries again)", error);
    if (lasting) return;
    startAgain = setTimeout(
      () => {
        starting = start();
        starting.catch(retryStart(tries + 1));
      },
      Math.min(5_000, 100 * 2 ** tries),
    );
    startAgain.unref?.();
  };
  ready.catch(retryStart(0));

  let closed = false;
  let shutdown: Promise<void> | undefined;
  const runtime: AgentRuntime = {
    ready,
    async createSession({ owner, key } = {}) {
      const cap = options.maxSessionsPerOwner;
      const sessionId = key === undefined ? randomId("ses") : keyedSessionId(owner, key);
      const made = async () => {
        if (key === undefined) return false;
        const session = await store.getSession(sessionId);
        if (session && session.owner !== owner)
          throw new ProtocolError("bad_request", "This Idempotency-Key is taken.");
        return session !== undefined;
      };
      const create = async (): Promise<CreatedSession> => {
        if (await made()) return { sessionId, repeated: true };
        if (owner !== undefined && cap !== undefined && (await store.countSessions(owner)) >= cap) {
          throw new ProtocolError(
            "session_limit",
            `You have ${cap} sessions, the most allowed; delete one (DELETE /sessions/:id) to start another.`,
            { limit: cap },
          );
        }
        try {
          await store.createSession(idleSession(sessionId, owner));
        } catch (error) {
          // The same creation, resent while the first was being written (here or on another instance).
          if (await made()) return { sessionId, repeated: true };
          throw error;
        }
        await core.mustCommit(sessionId, { events: [{ type: "session.created" }] });
        return { sessionId, repeated: false };
      };
      // With a cap, one creation at a time per owner, so concurrent requests cannot pass it
      // together. The lock's key is no session's (ids have no space) and fits a text column.
      return owner === undefined || cap === undefined ? create() : lock.run(`owner ${owner}`, create);
    },
    listSessions: (listOptions) => store.listSessions(listOptions),
    async getSessionInfo(sessionId) {
      const session = await store.getSession(sessionId);
      if (!session) return undefined;
      const { owner, createdAt, updatedAt, title, status, lastSeq } = session;
      return {
        sessionId,
        ...(owner === undefined ? {} : { owner }),
        createdAt,
        updatedAt,
        status,
        lastSeq,
        ...(title === undefined ? {} : { title }),
      };
    },
    deleteSession,
    async getSnapshot(sessionId, page) {
      await withSession(sessionId, async () => {});
      const snapshot = await store.readSnapshot(sessionId, page);
      if (!snapshot) throw new ProtocolError("not_found", `There is no session ${sessionId}.`);
      return snapshot;
    },
    async readEvents(sessionId, afterSeq, limit) {
      await withSession(sessionId, async () => {});
      return store.readEvents(sessionId, afterSeq, limit);
    },
    subscribe(sessionId, listener, onEnd) {
      // Counted for telemetry until it stops listening or the session's events end.
      const closed = core.telemetry.streamOpened(sessionId);
      const unsubscribe = core.hub.subscribe(sessionId, listener, () => {
        closed();
        onEnd?.();
      });
      return () => {
        closed();
        unsubscribe();
      };
    },
    sendMessage(sessionId, text, { key } = {}) {
      return withSession(sessionId, async (session): Promise<SentMessage> => {
        const digest = key === undefined ? undefined : textDigest(text);
        const known = key === undefined ? undefined : session.keyedMessages?.find((sent) => sent.key === key);
        if (known) {
          if (known.digest !== digest) {
            throw new ProtocolError(
              "bad_request",
              `The Idempotency-Key ${JSON.stringify(key)} was already used for another message in this session; send a new message with a new key.`,
            );
          }
          return { turnId: known.turnId, repeated: true };
        }
        // Older than the keys the session remembers with their text: still the same message.
        const earlier = key === undefined ? undefined : await store.findKeyedTurn(sessionId, key);
        if (earlier !== undefined) return { turnId: earlier, repeated: true };
        if (closing) throw shuttingDown();
        if (session.status === "running" || session.status === "resuming") {
          throw new ProtocolError(
            "turn_running",
            "A turn is running in this session; wait for it to finish or cancel it.",
          );
        }
        let ended: WriteBatch = {};
        if (session.status === "waiting") {
          if (options.whileParked === "reject") {
            throw new ProtocolError(
              "turn_running",
              "Requests in this session are waiting for an answer; answer, decline or cancel them first.",
            );
          }
          ended = await core.endTurnBatch(
            session,
            { type: "turn.cancelled" },
            "The person sent a new message instead of answering.",
          );
        }
        const turnId = randomId("turn");
        const messageId = randomId("msg");
        const keyed = key === undefined ? {} : { idempotencyKey: key };
        await core.mustCommit(sessionId, {
          ...ended,
          events: [
            ...(ended.events ?? []),
            { type: "turn.started", turnId, cause: "message", ...keyed },
            { type: "message.started", messageId, role: "user", ...keyed },
            { type: "text.delta", messageId, delta: text },
            { type: "message.completed", messageId },
          ],
          transcript: [...(ended.transcript ?? []), { role: "user", content: [{ type: "text", text }] }],
          session: {
            ...ended.session,
            status: "running",
            turnId,
            step: 0,
            stepOpen: false,
            ...(session.title === undefined ? { title: cutText(text, 80) } : {}),
            ...(key === undefined || digest === undefined
              ? {}
              : { keyedMessages: [...(session.keyedMessages ?? []), { key, digest, turnId }].slice(-KEYED_MESSAGES) }),
          },
        });
        driver.kick(sessionId);
        return { turnId, repeated: false };
      });
    },
    respond(sessionId, responses) {
      return withSession(sessionId, async (session) => {
        const ids = responses.map((response) => response.requestId);
        if (new Set(ids).size !== ids.length) {
          throw new ProtocolError("bad_request", "Each request may be answered once per body.");
        }
        // A closing runtime starts no turn, and an answer to a parked turn may resume it.
        if (closing && session.status === "waiting") throw shuttingDown();
        // Most answers are to open requests, read at once; the settlement needs them all anyway.
        const openRequests = await store.getOpenRequests(sessionId);
        const openById = new Map(openRequests.map((record) => [record.requestId, record]));
        const records: RequestRecord[] = [];
        for (const response of responses) {
          const record = openById.get(response.requestId) ?? (await store.getRequest(sessionId, response.requestId));
          if (!record)
            throw new ProtocolError("not_found", `There is no request ${response.requestId} in this session.`);
          if (record.state === "settled" && !sameAnswer(record, response)) {
            throw new ProtocolError(
              "already_resolved",
              `Request ${record.requestId} was already resolved (${record.resolution?.action}) with a different answer.`,
              { resolution: view(record) },
            );
          }
          records.push(record);
        }
        const open = responses.flatMap((cause, index) => {
          const record = records[index]!;
          return record.state === "open" ? [{ record, cause }] : [];
        });
        const settledNow = open.length > 0 ? await settleLocked(session, open, openRequests) : [];
        const settled = new Map(settledNow.map((record) => [record.requestId, record]));
        return {
          status: open.length > 0 ? 202 : 200,
          resolutions: records.map((record) => view(settled.get(record.requestId) ?? record)),
        };
      });
    },
    cancel(sessionId, { turnId: only } = {}) {
      // A turn this instance drives ends as cancelled by its own driver. One driven elsewhere
      // is waited for until it has stopped: one whose instance died is ended here when its
      // lease lapses (or by the instance that takes it over), so the cancel is not lost. It
      // stops the turn that was current when it came, never a later one.
      let turnId = only;
      const cancelled = (session: SessionRecord) =>
        core.endTurnBatch(session, { type: "turn.cancelled" }, "The person cancelled the turn.");
      return untilStopped(
        (section) => withSession(sessionId, section),
        async (session) => {
          turnId ??= session.turnId;
          if (session.status === "idle" || session.turnId !== turnId) return {};
          if (session.status === "waiting") {
            await core.mustCommit(sessionId, await cancelled(session));
            return {};
          }
          // Kept before it is passed on: should this instance stop before the turn does, the
          // turn's next driver (a restart, or the instance taking it over) ends it as asked.
          if (session.cancelRequested !== turnId) {
            await core.mustCommit(sessionId, { session: { cancelRequested: turnId } });
          }
          if (driver.abort(sessionId)) return {};
          const stopping = await stopDriver(session);
          if (stopping.wait) return stopping;
          // No instance drives the turn (its driver died, or waits for the store): end it here, with every call's result.
          try {
            await core.mustCommit(sessionId, await cancelled(await withFinished(session)));
          } finally {
            await coordination.turns.release(sessionId);
          }
          return {};
        },
      );
    },
    async idle() {
      while (recovering) await recovering;
      await driver.idle();
    },
    async health() {
      if (closing) return { ok: false, status: "closing" };
      if (!started) return { ok: false, status: "starting" };
      try {
        await store.getSession("ses_health_check");
        return { ok: true, status: "serving" };
      } catch {
        return { ok: false, status: "store_unavailable" };
      }
    },
    logger: core.logger,
    close({ timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS } = {}) {
      // A second call (a signal handler and a `finally`, say) waits for the first one's close.
      shutdown ??= (async () => {
        closing = true;
        driver.stop();
        expiry.stop();
        sweeper?.stop();
        clearInterval(orphans);
        clearTimeout(startAgain);
        clearTimeout(recoverAgain);
        // A start that failed was reported by `ready`; closing goes on without it.
        await starting.catch(() => {});
        const drained = (async () => {
          while (recovering) await recovering;
          await driver.idle();
        })();
        if (!(await settlesWithin(drained, timeoutMs))) {
          const left = driver.leave();
          const next = coordination.shared ? "another instance" : "the next start";
          core.logger.warn(
            `hitl-kit: closing: ${left.length} turn(s) still running after ${timeoutMs} ms were left for ${next} to resume: ${left.slice(0, 10).join(", ")}${left.length > 10 ? ", …" : ""}.`,
          );
          await drained;
        }
        // Nothing more comes through this instance: its streams end, and browsers reconnect elsewhere.
        core.hub.endAll();
        await coordination.close();
        closed = true;
      })();
      return shutdown;
    },
  };
  return refusedOnceClosed(runtime, () => closed);
}

/** The runtime's calls that reach the store and the session locks. */
const storeCalls = [
  "createSession",
  "listSessions",
  "getSessionInfo",
  "deleteSession",
  "getSnapshot",
  "readEvents",
  "sendMessage",
  "respond",
  "cancel",
] as const satisfies readonly (keyof AgentRuntime)[];

/**
 * The runtime, whose store calls a closed runtime refuses with `unavailable` (503): its
 * session locks are gone, so they could only fail, and a balancer retries a 503 elsewhere.
 */
function refusedOnceClosed(runtime: AgentRuntime, closed: () => boolean): AgentRuntime {
  const guarded: Record<string, unknown> = { ...runtime };
  for (const name of storeCalls) {
    const call = runtime[name] as (...args: unknown[]) => Promise<unknown>;
    guarded[name] = (...args: unknown[]) => (closed() ? Promise.reject(shuttingDown()) : call(...args));
  }
  return guarded as unknown as AgentRuntime;
}

/** A write under a session's lock was refused by the store's guards: the session changed meanwhile. */
class ChangedMeanwhile extends Error {}

const shuttingDown = () =>
  new ProtocolError(
    "unavailable",
    "This server is shutting down; send the request again (another instance, or this one once restarted, answers it).",
  );

const deletedReason = "The session was deleted.";

/** How long a deletion waits for another instance to stop the session's turn before it looks again. */
const RETRY_MS = 25;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How many sessions a starting runtime recovers at a time, each until its resumed turn parks or ends. */
const RECOVERY_CONCURRENCY = 32;

/** How long `close()` waits for running turns by default, well within a deploy's usual 30 s grace. */
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** Whether `work` settles within `ms` (for ever beyond what a timer can wait). The timer holds the process open, so a close ends. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms > MAX_TIMER_MS) return work.then(() => true);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long after a recovery that failed (the store out of reach) it is tried again. */
const RECOVERY_RETRY_MS = 5_000;

/**
 * Runs `task` on every item, at most `limit` at a time, taking no more once `stopped()`;
 * rejects with the first failure once all have settled.
 */
async function eachBounded<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length && !stopped()) {
      const item = items[next++] as T;
      await task(item).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

function view(record: RequestRecord): ResolutionView {
  const { action, value, reason } = record.resolution!;
  return {
    requestId: record.requestId,
    action,
    ...(value === undefined ? {} : { value }),
    ...(reason === undefined ? {} : { reason }),
  };
}

/**
 * How many keyed messages a session remembers: a client resends one for seconds, while at
 * most a message or two of other tabs can overtake it.
 */
const KEYED_MESSAGES = 8;

/**
 * The id of the session `owner` creates under `key`: the same for a resent creation, on any
 * instance and after a restart, and another for another owner.
 */
function keyedSessionId(owner: string | undefined, key: string): string {
  const digest = createHash("sha256")
    .update(`session\u0000${owner ?? ""}\u0000${key}`)
    .digest("base64url");
  return `ses_${digest.slice(0, 22)}`;
}

/** What a keyed message is compared by: its text's SHA-256, so the session keeps 43 characters, not the text. */
function textDigest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

function sameAnswer(record: RequestRecord, response: InputResponse): boolean {
  const resolution = record.resolution;
  if (!resolution || resolution.action !== response.action) return false;
  if ((resolution.reason ?? undefined) !== (response.reason ?? undefined)) return false;
  if (response.action !== "accept") return true;
  const asked = record.request.kind === "approval" ? (response.value ?? {}) : response.value;
  return jsonEqual(asked, resolution.value);
}
