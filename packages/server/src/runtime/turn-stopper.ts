import type { SessionRecord } from "../store/records.js";
import { type AbortCause, LeaseLost, type StopKind } from "./coordination.js";
import { failureLine, logScope } from "./logged-error.js";
import { delay } from "./model-retry.js";
import type { RequestSettler } from "./request-settler.js";
import type { RuntimeCore } from "./runtime-core.js";
import { stopped, stopReasons } from "./stop-reasons.js";
import type { TurnDriver } from "./turn-driver.js";

/** What a section under a session's lock answers: what to wait for, outside the lock, before it runs again. */
type Stopping = { wait?: Promise<void> };

/**
 * Stops a session's turn from outside its driver: the person's Stop (`cancel`), a deletion,
 * and another instance's request to stop a turn this one drives. Every call keeps its one
 * result: the turn's driver ends it when it runs here, else it is ended under the lock.
 */
export class TurnStopper {
  constructor(
    private readonly core: RuntimeCore,
    private readonly driver: TurnDriver,
    private readonly settler: RequestSettler,
  ) {}

  /** Answers the coordination's request to stop a turn this instance drives (`Coordination.onAbort`). */
  abortRequested(sessionId: string, cause: AbortCause): void {
    const { driver, core } = this;
    if (cause.kind === "lease_lost") {
      driver.abort(sessionId, new LeaseLost(sessionId));
      return;
    }
    // A request can arrive late: it stops the turn it names, never a later one.
    if (!driver.running(sessionId)) return;
    void core.store
      .getSession(sessionId)
      .then((session) => {
        const live = session?.status === "running" || session?.status === "resuming";
        if (live && session.turnId === cause.turnId) driver.abort(sessionId, stopped(cause.stop));
      })
      .catch((error: unknown) =>
        core.logger.error(
          ...failureLine(`hitl-kit: ${logScope(sessionId, cause.turnId)}: could not stop the turn`, error),
        ),
      );
  }

  /**
   * Stops the session's turn (see `AgentRuntime.cancel`), saying why: the person's Stop, or
   * (`stop: "message"`) their new message while a tool of the turn waited for their answer,
   * which resolves once the turn has ended.
   */
  cancel(
    sessionId: string,
    { turnId: only, stop = "cancel" }: { turnId?: string; stop?: Exclude<StopKind, "delete"> } = {},
  ): Promise<void> {
    const { core, driver } = this;
    // A turn this instance drives ends as cancelled by its own driver. One driven elsewhere
    // is waited for until it has stopped: one whose instance died is ended here when its
    // lease lapses (or by the instance that takes it over), so the cancel is not lost. It
    // stops the turn that was current when it came, never a later one.
    let turnId = only;
    return untilStopped(
      (section) => this.settler.withSession(sessionId, section),
      async (session) => {
        turnId ??= session.turnId;
        if (session.status === "idle" || session.turnId !== turnId) return {};
        if (session.status === "waiting") {
          await core.mustCommit(
            sessionId,
            await core.endTurnBatch(session, { type: "turn.cancelled" }, stopReasons[stop]),
          );
          return {};
        }
        // Kept before it is passed on: should this instance stop before the turn does, the
        // turn's next driver (a restart, or the instance taking it over) ends it as asked.
        if (session.cancelRequested !== turnId) {
          await core.mustCommit(sessionId, { session: { cancelRequested: turnId } });
        }
        // A Stop returns once the driver is told; a message waits for the turn's end, to come after it.
        if (driver.abort(sessionId, stopped(stop))) return stop === "message" ? { wait: driver.done(sessionId) } : {};
        const stopping = await this.#stopDriver(session, stop);
        if (stopping.wait) return stopping;
        // No instance drives the turn (its driver died, or waits for the store): end it here, with every call's result.
        try {
          await driver.endCancelled(session, (batch) => core.mustCommit(sessionId, batch), stopReasons[stop]);
        } finally {
          await core.coordination.turns.release(sessionId);
        }
        return {};
      },
    );
  }

  /** Deletes a session, its turn stopped and its open requests cancelled first (see `AgentRuntime.deleteSession`). */
  deleteSession(sessionId: string): Promise<void> {
    const { core, driver } = this;
    const locked = (section: (session: SessionRecord) => Promise<Stopping>) =>
      core.lock.run(sessionId, async () => section(await core.requireSession(sessionId)));
    return untilStopped(locked, async (session) => {
      // The driver ends an aborted turn itself, giving every unfinished call its result.
      if (session.status !== "idle" && driver.abort(sessionId, stopped("delete"))) {
        return { wait: driver.done(sessionId) };
      }
      if (session.status === "running" || session.status === "resuming") {
        const stopping = await this.#stopDriver(session, "delete");
        if (stopping.wait) return stopping;
      }
      if (session.status !== "idle") {
        const ending = await this.#withFinished(session);
        await core.mustCommit(
          sessionId,
          await core.endTurnBatch(ending, { type: "turn.cancelled" }, stopReasons.delete),
        );
      }
      await core.store.deleteSession(sessionId);
      driver.forget(sessionId);
      core.hub.end(sessionId);
      return {};
    });
  }

  /**
   * Stops the session's running turn: no `wait` when this instance may end it itself (it
   * drives no turn of it and no other instance does: it took the lease), else what to wait
   * for, outside the session's lock, before looking again — this instance's driver ending
   * the turn, or a moment while the instance that drives it is asked to. A dead instance
   * cannot answer; once its lease lapses, a look takes the lease.
   */
  async #stopDriver(session: SessionRecord, stop: StopKind): Promise<Stopping> {
    const { driver } = this;
    const { coordination } = this.core;
    const { sessionId, turnId } = session;
    if (driver.abort(sessionId, stopped(stop))) return { wait: driver.done(sessionId) };
    if (!coordination.shared || !turnId || (await coordination.turns.acquire(sessionId))) return {};
    await coordination.requestAbort(sessionId, turnId, stop);
    return { wait: delay(RETRY_MS) };
  }

  /** The session once the results of calls that finished here while the store was away are written (see `writeFinished`). */
  async #withFinished(session: SessionRecord): Promise<SessionRecord> {
    return (await this.driver.writeFinished(session)) ? this.core.requireSession(session.sessionId) : session;
  }
}

/**
 * Runs `section` under the session's lock (`withSession`, or the lock alone) until it
 * asks for no more waiting: a section that needs the turn's driver to stop first returns
 * `{ wait }`, and the wait happens outside the lock, which the driver needs.
 */
async function untilStopped(
  locked: (section: (session: SessionRecord) => Promise<Stopping>) => Promise<Stopping>,
  section: (session: SessionRecord) => Promise<Stopping>,
): Promise<void> {
  for (;;) {
    const { wait } = await locked(section);
    if (!wait) return;
    await wait;
  }
}

/** How long a deletion waits for another instance to stop the session's turn before it looks again. */
const RETRY_MS = 25;
