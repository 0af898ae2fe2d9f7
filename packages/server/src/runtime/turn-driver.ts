import type { EventInput } from "@hitl-kit/protocol";
import type { SessionRecord, ToolCallRecord, WriteBatch } from "../store/records.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { LeaseLost } from "./coordination.js";
import { nextTurn } from "./event-loop.js";
import { randomId } from "./ids.js";
import { failureLine, logScope } from "./logged-error.js";
import { describeFailure, LeftForRecovery, ModelTurnStep } from "./model-turn-step.js";
import { outageDelay } from "./outage-wait.js";
import { PersonWaits } from "./person-waits.js";
import type { RuntimeCore } from "./runtime-core.js";
import { serverStopped, stopReasons, whyStopped } from "./stop-reasons.js";
import { ToolExecution, ToolsOutlastedStop } from "./tool-execution.js";
import { ToolQuestions } from "./tool-questions.js";
import { TurnWriter } from "./turn-writer.js";

type Move =
  | { kind: "stop" }
  | { kind: "again" }
  | { kind: "model"; session: SessionRecord }
  | { kind: "execute"; calls: ToolCallRecord[]; owner: string | undefined };

/**
 * Drives turns forward from the durable state: runs ready tools, parks, closes steps and
 * calls the model, one session at a time. It keeps nothing about a session in memory
 * once the session parks or goes idle, so a restarted process picks up where it stopped.
 */
export class TurnDriver {
  readonly #running = new Map<string, { done: Promise<void>; abort: AbortController; kicked: boolean }>();
  /** Per session, the drive waiting for the store to come back: its timer and how many tries it made. */
  readonly #retries = new Map<string, { timer: ReturnType<typeof setTimeout>; tries: number }>();
  /** The runtime closed before its turns ended, and left them: no drive starts any more. */
  #left = false;
  /**
   * Aborted when the runtime closes (`stop`): a model call's retry waits no longer, the turn is
   * left to the next start, and no drive waits for the store to come back.
   */
  readonly #closing = new AbortController();
  readonly #writer: TurnWriter;
  readonly #questions: ToolQuestions;
  /** Which drives wait on the person alone (their tools' questions), for `settled()`. */
  readonly #waits = new PersonWaits();
  readonly #execution: ToolExecution;
  readonly #modelStep: ModelTurnStep;

  constructor(private readonly core: RuntimeCore) {
    this.#writer = new TurnWriter(core);
    this.#questions = new ToolQuestions(core, this.#writer, this.#waits);
    this.#execution = new ToolExecution(core, this.#writer, this.#questions, this.#waits);
    this.#modelStep = new ModelTurnStep(core, this.#writer, {
      stopped: () => this.#closing.signal.aborted,
      left: () => this.#left,
      signal: this.#closing.signal,
    });
  }

  /**
   * Starts driving a session unless it is being driven already. `before` are events the
   * drive's first write carries ahead of its own (recovery's closing of a cut-off message),
   * so a recovered session costs one write, not two; a drive that writes nothing writes
   * them alone when it ends.
   */
  kick(sessionId: string, before: EventInput[] = []): void {
    if (this.#left) return;
    const running = this.#running.get(sessionId);
    if (running) {
      // The drive may be past its last look at the session (a settlement or a message just
      // started the turn again, while it gave the lease up): it drives again when it ends.
      running.kicked = true;
      return;
    }
    if (before.length > 0) this.#writer.setBefore(sessionId, before);
    const abort = new AbortController();
    let again = false;
    const retry = this.#retries.get(sessionId);
    clearTimeout(retry?.timer);
    const done = this.#own(sessionId, abort.signal, retry !== undefined)
      .then(
        (more) => {
          again = more;
          this.#retries.delete(sessionId);
          this.#execution.dropFinished(sessionId);
        },
        (error: unknown) => {
          if (error instanceof StoreUnavailable && !error.lasting) {
            return this.#retryLater(sessionId, error, retry?.tries ?? 0);
          }
          this.#retries.delete(sessionId);
          if (error instanceof LeftForRecovery) return this.core.logger.warn(error.message);
          if (error instanceof StoreUnavailable) {
            // Trying again cannot help: the turn stays as it is in the store, for the next start.
            this.#execution.dropFinished(sessionId);
            return this.core.trouble("turns stop until the store is fixed and the server restarted", error);
          }
          this.core.logger.error(...failureLine(`hitl-kit: driving session ${sessionId} failed`, error));
        },
      )
      .finally(() => {
        this.core.telemetry.driveEnded(sessionId);
        this.#writer.dropBefore(sessionId);
        this.#running.delete(sessionId);
        if (again || entry.kicked) this.kick(sessionId);
      });
    const entry = { done, abort, kicked: false };
    this.#running.set(sessionId, entry);
  }

  /**
   * Aborts the model call or tools of a session's running turn; the driver then ends it as
   * cancelled — or, when `reason` is a {@link LeaseLost}, stops without writing. A turn
   * whose drive waits for the store is driven now, to end it so.
   */
  abort(sessionId: string, reason?: unknown): boolean {
    if (!this.#running.has(sessionId) && this.#retries.has(sessionId) && !(reason instanceof LeaseLost)) {
      this.kick(sessionId);
    }
    const running = this.#running.get(sessionId);
    running?.abort.abort(reason);
    return running !== undefined;
  }

  /** Whether this instance drives the session now, or will once the store is back. */
  running(sessionId: string): boolean {
    return this.#running.has(sessionId) || this.#retries.has(sessionId);
  }

  /** Resolves when the session's current drive ends (at once when it is not being driven). */
  async done(sessionId: string): Promise<void> {
    await this.#running.get(sessionId)?.done;
  }

  /**
   * Resolves when the session's current drive ends or waits on the person alone (its
   * tools wait for answers to their questions, as a parked turn waits): what a recovered
   * turn holds its place in recovery until.
   */
  async doneOrWaiting(sessionId: string): Promise<void> {
    for (;;) {
      const entry = this.#running.get(sessionId);
      if (!entry || this.#waits.waiting(sessionId)) return;
      await Promise.race([entry.done, this.#waits.changed()]);
    }
  }

  /** Forgets what it keeps of a deleted session between turns (its transcript). */
  forget(sessionId: string): void {
    this.#modelStep.forget(sessionId);
    this.core.telemetry.forget(sessionId);
  }

  /** Resolves when no session is being driven. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((entry) => entry.done));
  }

  /** Resolves when every drive has ended or waits on the person alone (see {@link PersonWaits}). */
  async settled(): Promise<void> {
    const busy = () => [...this.#running].filter(([sessionId]) => !this.#waits.waiting(sessionId));
    for (;;) {
      let left = busy();
      // What is under way (an answer from elsewhere, a withdrawal) gets its turn before the rest count as waiting.
      if (left.length === 0 && this.#running.size > 0) {
        await nextTurn();
        left = busy();
      }
      if (left.length === 0) return;
      await Promise.race([Promise.all(left.map(([, entry]) => entry.done)), this.#waits.changed()]);
    }
  }

  /**
   * Resolves once every drive has ended or waits only for answers to questions that outlive
   * a restart (`rerunAfterRestart`): what a closing runtime needs to wait for.
   */
  async leavable(): Promise<void> {
    const left = () => [...this.#running].filter(([sessionId]) => !this.#waits.waitingAcrossRestarts(sessionId));
    for (let busy = left(); busy.length > 0; busy = left()) {
      await Promise.race([Promise.all(busy.map(([, entry]) => entry.done)), this.#waits.changed()]);
    }
  }

  /** Drives no session that waits for the store to come back (the runtime is closing). */
  stop(): void {
    this.#closing.abort();
    for (const { timer } of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
    for (const [sessionId, calls] of this.#execution.waitingForStore()) {
      this.core.logger.warn(
        `hitl-kit: closing: session ${sessionId}: the results of ${calls.join(", ")}, which finished while the store could not be reached, were not written; the next start (or another instance) gives those calls an error result saying they may or may not have completed: check whether they took effect.`,
      );
    }
  }

  /**
   * The runtime closes before its turns ended: every drive stops where it is, as when
   * another instance takes its turn over, and gives its lease up; a tool that ends within the
   * grace still writes its own result while the lease is held. Each turn stays running in the
   * store, for the next start (or another instance) to resume as after a crash. No drive
   * starts after this. Answers the sessions it left.
   */
  leave(): string[] {
    this.#left = true;
    const left = [...this.#running.keys()];
    for (const [sessionId, { abort }] of this.#running) abort.abort(new LeaseLost(sessionId, "the runtime closed"));
    return left;
  }

  /**
   * The drive stopped because the store could not be reached: it leaves the turn as it is
   * and drives it again after a while (100 ms, doubling up to 5 s) until the store answers.
   * Meanwhile the turn stays this instance's, unless another instance takes its lapsed lease.
   */
  #retryLater(sessionId: string, error: StoreUnavailable, tries: number): void {
    if (this.#closing.signal.aborted) return;
    this.core.trouble("turns wait for the store to come back", error);
    const timer = setTimeout(() => this.kick(sessionId), outageDelay(tries));
    timer.unref?.();
    this.#retries.set(sessionId, { timer, tries: tries + 1 });
  }

  /**
   * Writes the results of the session's calls that finished here while the store could not
   * be reached, when they are still executing in the store; answers whether it wrote any.
   * Called in a section of the session, before anything else ends those calls.
   */
  writeFinished(session: SessionRecord): Promise<boolean> {
    return this.#execution.writeFinished(session);
  }

  /**
   * Drives the session while this instance holds its turn's lease. Answers whether to drive
   * it again: another instance may have resumed the turn while this one still held the lease.
   */
  async #own(sessionId: string, signal: AbortSignal, retrying: boolean): Promise<boolean> {
    const { turns, shared } = this.core.coordination;
    // A drive that stops because the store cannot be reached keeps the turn's lease (renewed
    // by the heartbeat) for its next try (see `#retryLater`), which gives it up when it ends:
    // else another instance would take the turn over meanwhile and write as interrupted the
    // calls whose results wait here. Any other failure gives the lease up.
    const keeps = (error: unknown) =>
      error instanceof StoreUnavailable && !error.lasting && !this.#closing.signal.aborted;
    try {
      if (!(await turns.acquire(sessionId))) return false;
    } catch (error) {
      // The lease may have been taken (or held already, by recovery).
      if (!keeps(error)) await turns.release(sessionId).catch(() => {});
      throw error;
    }
    let lost = false;
    let kept = false;
    try {
      // Another instance may have driven this turn until it died or lost the lease mid-stream
      // (recovery, which found the cut-off message itself, hands it over as `before`), or this
      // one until the store could not be reached.
      if ((shared || retrying) && !this.#writer.hasBefore(sessionId)) {
        await this.#writer.section(sessionId, () => this.#abandonCutOff(sessionId));
      }
      lost = await this.#drive(sessionId, signal);
      if (!lost) await this.#writer.writeBefore(sessionId);
    } catch (error) {
      kept = keeps(error);
      if (!(error instanceof LeaseLost)) throw error;
      lost = true;
    } finally {
      if (!kept) await turns.release(sessionId).catch(() => {});
    }
    if (!shared || lost || signal.aborted) return false;
    const status = (await this.core.store.getSession(sessionId))?.status;
    return status === "running" || status === "resuming";
  }

  async #abandonCutOff(sessionId: string): Promise<void> {
    const session = await this.core.requireSession(sessionId);
    if (session.status !== "running" && session.status !== "resuming") return;
    const cutOff = await this.core.cutOffBatch(session);
    if (cutOff) await this.#writer.fenced(sessionId, cutOff);
  }

  /** Answers `true` when it stopped because another instance took the turn over. */
  async #drive(sessionId: string, signal: AbortSignal): Promise<boolean> {
    const { core } = this;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        const move = await this.#writer.section(sessionId, () => this.#nextMove(sessionId));
        if (move.kind === "stop") return false;
        if (move.kind === "execute") await this.#execution.execute(sessionId, move.owner, move.calls, signal);
        // A step that parks or ends the turn says so: no further look at the session.
        if (move.kind === "model" && (await this.#modelStep.run(move.session, signal)) === "stop") return false;
      }
    } catch (error) {
      if (error instanceof LeaseLost || signal.reason instanceof LeaseLost) return true;
      // Not the turn's failure: the drive stops, and goes on once the store is back (or at the next start).
      if (error instanceof StoreUnavailable || error instanceof LeftForRecovery) throw error;
      let turnId: string | undefined;
      await core.lock.run(sessionId, async () => {
        const found = await core.requireSession(sessionId);
        turnId = found.turnId;
        if (found.status === "idle" || found.status === "waiting") return;
        const session = (await this.#execution.writeFinished(found)) ? await core.requireSession(sessionId) : found;
        const batch = signal.aborted
          ? await core.endTurnBatch(
              session,
              { type: "turn.cancelled" },
              whyStopped(signal),
              error instanceof ToolsOutlastedStop ? error.reasons : undefined,
            )
          : await core.endTurnBatch(
              session,
              { type: "turn.failed", error: describeFailure(error) },
              describeFailure(error).message,
            );
        await this.#writer.commit(sessionId, batch);
      });
      if (!signal.aborted)
        core.logger.warn(...failureLine(`hitl-kit: ${logScope(sessionId, turnId)}: the turn failed`, error));
      return false;
    }
  }

  async #nextMove(sessionId: string): Promise<Move> {
    const { core } = this;
    const session = await core.requireSession(sessionId);
    // `resuming` goes on as `running` does; the model step's write records the change.
    if (session.status !== "running" && session.status !== "resuming") return { kind: "stop" };
    if (session.turnId) core.telemetry.driving(sessionId, session.turnId);
    if (session.cancelRequested === session.turnId) {
      // A person's cancel the instance that took it did not see through (it stopped first).
      await this.endCancelled(session, (batch) => this.#writer.commit(sessionId, batch));
      return { kind: "stop" };
    }
    if (!session.stepOpen) {
      if (session.step < (core.options.maxSteps ?? 16)) return { kind: "model", session };
      const error = { code: "max_steps", message: `The turn made ${session.step} model calls without finishing.` };
      await this.#writer.commit(sessionId, {
        events: [{ type: "turn.failed", turnId: session.turnId!, error }],
        session: { status: "idle" },
      });
      return { kind: "stop" };
    }
    if (await this.#execution.writeFinished(session)) return { kind: "again" };
    const calls = await this.#stepCalls(session);
    const executing = calls.filter((call) => call.state === "executing");
    // Only a server that stopped leaves a call executing (a crash, a close that left the turn,
    // a dead instance whose turn this one took over). A tool implemented with
    // `rerunAfterRestart` runs again (its earlier questions keep their answers, an open one
    // stays open), unless crashes cut it off too often; not a call started before the option
    // was on (no seed), whose questions a new run could not find again.
    const rerun = executing.filter(
      (call) =>
        call.questionSeed !== undefined &&
        core.tools.get(call.toolName)?.rerunAfterRestart &&
        (call.runs ?? 1) - (call.left ?? 0) < MAX_RUNS,
    );
    const interrupted = executing.filter((call) => !rerun.includes(call));
    if (interrupted.length > 0) {
      // Any other such call may or may not have finished, so it is not run twice: it gets an
      // error result that says so, and a question it was waiting on is cancelled.
      const message =
        "The server running this tool stopped before it finished; the tool may or may not have completed.";
      const questions = await this.#questions.cancelBatch(
        sessionId,
        interrupted.map((call) => call.toolCallId),
        serverStopped,
      );
      await this.#writer.commit(sessionId, {
        requests: questions.requests,
        toolCalls: interrupted.map((call) => ({ ...call, state: "done", outcome: "error", output: { message } })),
        events: [
          ...questions.events,
          ...interrupted.map((call) => ({
            type: "tool.result" as const,
            toolCallId: call.toolCallId,
            outcome: "error" as const,
            output: { message },
          })),
        ],
      });
      this.#logInterrupted(sessionId, interrupted, "an error");
      return { kind: "again" };
    }
    if (rerun.length > 0) {
      const again = rerun.map((call) => ({ ...call, runs: (call.runs ?? 1) + 1 }));
      await this.#writer.commit(sessionId, { toolCalls: again });
      for (const call of again) {
        core.logger.warn(
          `hitl-kit: ${logScope(sessionId, call.turnId, call)}: the server running the tool stopped before it finished; running it again (run ${call.runs}, rerunAfterRestart: at most ${MAX_RUNS} cut off by a crash), its questions answered as before.`,
        );
      }
      return { kind: "execute", calls: again, owner: session.owner };
    }
    const ready = calls.filter((call) => call.state === "ready");
    if (ready.length > 0) {
      const starting = ready.map((call) => ({
        ...call,
        state: "executing" as const,
        ...(core.tools.get(call.toolName)?.rerunAfterRestart ? { questionSeed: randomId("seed") } : {}),
      }));
      await this.#writer.commit(sessionId, { toolCalls: starting });
      return { kind: "execute", calls: starting, owner: session.owner };
    }
    const parked = calls.filter((call) => call.state === "parked");
    if (parked.length > 0) {
      const requestIds = parked.map((call) => call.requestId!);
      await this.#writer.commit(sessionId, {
        events: [{ type: "turn.waiting", turnId: session.turnId!, requestIds }],
        session: { status: "waiting" },
      });
      return { kind: "stop" };
    }
    await this.#writer.commit(sessionId, core.closeStep(calls)!);
    return { kind: "again" };
  }

  /**
   * Ends, as the person asked, a stopped turn no driver runs any more (its instance died, or
   * stopped first), with `commit`: a call still executing ran where that instance died, so
   * it may or may not have completed, and its cancelled result and a log line say so.
   */
  async endCancelled(
    session: SessionRecord,
    commit: (batch: WriteBatch) => Promise<unknown>,
    reason = stopReasons.cancel,
  ): Promise<void> {
    const { core } = this;
    const { sessionId } = session;
    const ending = (await this.#execution.writeFinished(session)) ? await core.requireSession(sessionId) : session;
    const interrupted = ending.stepOpen
      ? (await this.#stepCalls(ending)).filter((call) => call.state === "executing")
      : [];
    await commit(
      await core.endTurnBatch(
        ending,
        { type: "turn.cancelled" },
        reason,
        new Map(interrupted.map((call) => [call.toolCallId, STOPPED_WHILE_INTERRUPTED])),
      ),
    );
    this.#logInterrupted(sessionId, interrupted, "a cancelled");
  }

  /** Someone may have to find out whether a call cut off by a crash took effect (a refund, say): one line each. */
  #logInterrupted(sessionId: string, calls: readonly ToolCallRecord[], result: "an error" | "a cancelled"): void {
    for (const call of calls) {
      this.core.logger.warn(
        `hitl-kit: ${logScope(sessionId, call.turnId, call)}: the server running the tool stopped before it finished; the call got ${result} result, but the tool may or may not have completed: check whether it took effect.`,
      );
    }
  }

  async #stepCalls(session: SessionRecord): Promise<ToolCallRecord[]> {
    return this.core.store.getToolCalls(session.sessionId, session.turnId!, session.step);
  }
}

/**
 * How many runs of a call of a tool implemented with `rerunAfterRestart` a crash may cut off
 * before it gets its error result (a tool that takes its process down would loop); runs
 * ended by a server closing on purpose (a deploy) do not count.
 */
const MAX_RUNS = 3;

/** The result of a call a stopped turn found executing where its instance died (a restart, a takeover). */
const STOPPED_WHILE_INTERRUPTED =
  "The person stopped the turn while this tool ran, and the server running it stopped before it finished: it may or may not have completed.";
