import type { LanguageModelV4Message } from "@ai-sdk/provider";
import {
  type EventInput,
  type Infer,
  type InputRequest,
  type InputResponse,
  type ProtocolEvent,
  type SchemaLike,
  toJsonSchema,
  validate,
} from "@hitl-kit/protocol";
import { issueSummary } from "@hitl-kit/protocol/internal";
import type { Resolution, SessionRecord, ToolCallRecord, WriteBatch } from "../store/records.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { LeaseLost } from "./coordination.js";
import { eventCoalescer } from "./event-coalescer.js";
import { randomId, toolCallId } from "./ids.js";
import type { AskOptions, AskResult } from "./implement.js";
import { errorSummary, failureLine, logScope } from "./logged-error.js";
import { DEFAULT_MODEL_RETRIES, DEFAULT_MODEL_RETRY_DELAY_MS, delay, modelRetryDelay } from "./model-retry.js";
import { MAX_TIMER_MS, ModelStalled, type StepOutput, streamModelStep } from "./model-step.js";
import { abortedOnlyFor, findWritten, isPassingOutage, outageDelay } from "./outage-wait.js";
import { planStep } from "./plan-step.js";
import type { RuntimeCore } from "./runtime-core.js";
import { schemaHash } from "./schema-hash.js";
import type { ModelUsage } from "./telemetry.js";
import { ToolTimedOut, withinTimeLimit } from "./tool-timeout.js";
import { continueTranscriptCheck, unansweredCalls, withTurnBreaks } from "./transcript.js";
import { TranscriptCache } from "./transcript-cache.js";
import { uniqueToolCallIds } from "./unique-tool-call-ids.js";

type Move =
  | { kind: "stop" }
  | { kind: "again" }
  | { kind: "model"; session: SessionRecord }
  | { kind: "execute"; calls: ToolCallRecord[] };

/**
 * Drives turns forward from the durable state: runs ready tools, parks, closes steps and
 * calls the model, one session at a time. It keeps nothing about a session in memory
 * once the session parks or goes idle, so a restarted process picks up where it stopped.
 */
export class TurnDriver {
  readonly #running = new Map<string, { done: Promise<void>; abort: AbortController; kicked: boolean }>();
  readonly #transcripts = new TranscriptCache();
  readonly #before = new Map<string, EventInput[]>();
  /** Calls that asked a question in this process (`ctx.ask`), until they finish. */
  readonly #asked = new Set<string>();
  /**
   * Per session, the results of calls that finished while the store could not be reached:
   * written by the session's next drive, which finds the calls still executing.
   */
  readonly #finished = new Map<string, Map<string, Pick<ToolCallRecord, "outcome" | "output">>>();
  /** Per session, the drive waiting for the store to come back: its timer and how many tries it made. */
  readonly #retries = new Map<string, { timer: ReturnType<typeof setTimeout>; tries: number }>();
  #stopped = false;
  /** The runtime closed before its turns ended, and left them: no drive starts any more. */
  #left = false;
  /** Aborted when the runtime closes: a model call's retry waits no longer, and the turn is left to the next start. */
  readonly #closing = new AbortController();

  constructor(private readonly core: RuntimeCore) {}

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
    if (before.length > 0) this.#before.set(sessionId, before);
    const abort = new AbortController();
    let again = false;
    const retry = this.#retries.get(sessionId);
    clearTimeout(retry?.timer);
    const done = this.#own(sessionId, abort.signal, retry !== undefined)
      .then(
        (more) => {
          again = more;
          this.#retries.delete(sessionId);
          this.#finished.delete(sessionId);
        },
        (error: unknown) => {
          if (error instanceof StoreUnavailable && !error.lasting) {
            return this.#retryLater(sessionId, error, retry?.tries ?? 0);
          }
          this.#retries.delete(sessionId);
          if (error instanceof LeftForRecovery) return this.core.logger.warn(error.message);
          if (error instanceof StoreUnavailable) {
            // Trying again cannot help: the turn stays as it is in the store, for the next start.
            this.#finished.delete(sessionId);
            return this.core.trouble("turns stop until the store is fixed and the server restarted", error);
          }
          this.core.logger.error(...failureLine(`hitl-kit: driving session ${sessionId} failed`, error));
        },
      )
      .finally(() => {
        this.core.telemetry.driveEnded(sessionId);
        this.#before.delete(sessionId);
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

  /** Forgets what it keeps of a deleted session between turns (its transcript). */
  forget(sessionId: string): void {
    this.#transcripts.forget(sessionId);
    this.core.telemetry.forget(sessionId);
  }

  /** Resolves when no session is being driven. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((entry) => entry.done));
  }

  /** Drives no session that waits for the store to come back (the runtime is closing). */
  stop(): void {
    this.#stopped = true;
    this.#closing.abort();
    for (const { timer } of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
  }

  /**
   * The runtime closes before its turns ended: every drive stops where it is and writes
   * nothing more, as when another instance takes its turn over, and gives its lease up; each
   * turn stays running in the store, for the next start (or another instance) to resume as
   * after a crash. No drive starts after this. Answers the sessions it left.
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
    if (this.#stopped) return;
    this.core.trouble("turns wait for the store to come back", error);
    const timer = setTimeout(() => this.kick(sessionId), Math.min(5_000, 100 * 2 ** tries));
    timer.unref?.();
    this.#retries.set(sessionId, { timer, tries: tries + 1 });
  }

  /** Commits a batch of the drive, with the events it was kicked with ahead of the first one; answers the events it appended. */
  async #commit(sessionId: string, batch: WriteBatch): Promise<ProtocolEvent[]> {
    const before = this.#before.get(sessionId);
    const events = await this.#fenced(
      sessionId,
      before ? { ...batch, events: [...before, ...(batch.events ?? [])] } : batch,
    );
    this.#before.delete(sessionId);
    return events;
  }

  /**
   * Writes a batch of the turn. With several instances, the store refuses it once this one
   * no longer holds the turn's lease (checked in the write itself): the driver stops then.
   */
  async #fenced(sessionId: string, batch: WriteBatch): Promise<ProtocolEvent[]> {
    const { coordination } = this.core;
    const result = await this.core.commit(
      sessionId,
      coordination.shared ? { ...batch, requireLease: coordination.turns.holder } : batch,
    );
    if (!result.ok && result.reason === "lease") throw new LeaseLost(sessionId);
    if (!result.ok) throw new Error(`Write to session ${sessionId} refused (${result.reason}).`);
    return result.events;
  }

  /**
   * A model step's wait for a store that could not be reached (`error`), before it tries its
   * write again: it rethrows what cannot be waited out (another failure, a store that cannot
   * serve until fixed, a closing runtime), and ends when `lost` aborts (the turn is no longer
   * this instance's).
   */
  async #waitForStore(sessionId: string, error: unknown, tries: number, lost: AbortSignal): Promise<void> {
    if (!isPassingOutage(error) || this.#stopped) {
      if (error instanceof LeaseLost && tries > 0) this.#logTakenOver(sessionId);
      throw error;
    }
    this.core.trouble("turns wait for the store to come back", error);
    await delay(outageDelay(tries), lost, this.#closing.signal).catch(() => {
      if (!lost.aborted) throw error;
      if (lost.reason instanceof LeaseLost && !this.#left) this.#logTakenOver(sessionId);
      throw lost.reason;
    });
  }

  /** The turn was taken over while this instance waited for the store with part of a model reply in memory. */
  #logTakenOver(sessionId: string): void {
    this.core.logger.warn(
      `hitl-kit: session ${sessionId}: another instance took the turn over while the store could not be reached; the part of the model's reply this instance had not written is dropped, and the turn's new driver calls the model again (the cut-off message is marked abandoned).`,
    );
  }

  /** After a wait for the store: the turn's lease may have lapsed meanwhile; still this instance's, it is renewed, another's, the turn is theirs. */
  async #stillHolds(sessionId: string): Promise<void> {
    const { shared, turns } = this.core.coordination;
    if (shared && !(await turns.holds(sessionId))) throw new LeaseLost(sessionId);
  }

  /**
   * Writes a batch of a model step's streamed events; a store that cannot be reached is waited
   * out, while the model's reply streams on into memory (the coalescer queues it), and the
   * batch is written once it is back, in order and once: a failed write may have been applied,
   * so the log is read first. `written.lastSeq` is the newest seq the step knows written.
   */
  async #writeStreamed(
    sessionId: string,
    events: EventInput[],
    written: { lastSeq: number },
    lost: AbortSignal,
  ): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        if (tries > 0) {
          await this.#stillHolds(sessionId);
          const found = findWritten(await this.core.store.readEvents(sessionId, written.lastSeq), events);
          if (found) {
            this.#before.delete(sessionId); // they went with the first write
            this.core.hub.publish(sessionId, found);
            written.lastSeq = found.at(-1)?.seq ?? written.lastSeq;
            return;
          }
        }
        written.lastSeq = (await this.#commit(sessionId, { events })).at(-1)?.seq ?? written.lastSeq;
        return;
      } catch (error) {
        await this.#waitForStore(sessionId, error, tries, lost);
      }
    }
  }

  /** Writes the events the drive was kicked with when it wrote nothing itself. */
  async #writeBefore(sessionId: string): Promise<void> {
    if (!this.#before.has(sessionId)) return;
    await this.#turnSection(sessionId, () => this.#commit(sessionId, {})).catch((error: unknown) => {
      // Left for later: the message is still open in the log, and recovery (or the turn's next driver) closes it.
      this.#before.delete(sessionId);
      if (!(error instanceof LeaseLost)) {
        this.core.logger.warn(
          ...failureLine(`hitl-kit: session ${sessionId}: could not close a cut-off message`, error),
        );
      }
    });
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
    const keeps = (error: unknown) => error instanceof StoreUnavailable && !error.lasting && !this.#stopped;
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
      if ((shared || retrying) && !this.#before.has(sessionId)) {
        await this.#turnSection(sessionId, () => this.#abandonCutOff(sessionId));
      }
      lost = await this.#drive(sessionId, signal);
      if (!lost) await this.#writeBefore(sessionId);
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
    if (cutOff) await this.#fenced(sessionId, cutOff);
  }

  /** A critical section of the turn: it runs only while this instance holds the turn's lease. */
  #turnSection<T>(sessionId: string, section: () => Promise<T>): Promise<T> {
    const { lock, turns, shared } = this.core.coordination;
    return lock.run(sessionId, async () => {
      if (shared && !(await turns.holds(sessionId))) throw new LeaseLost(sessionId);
      return section();
    });
  }

  /** Answers `true` when it stopped because another instance took the turn over. */
  async #drive(sessionId: string, signal: AbortSignal): Promise<boolean> {
    const { core } = this;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        const move = await this.#turnSection(sessionId, () => this.#nextMove(sessionId));
        if (move.kind === "stop") return false;
        if (move.kind === "execute") await this.#execute(sessionId, move.calls, signal);
        // A step that parks or ends the turn says so: no further look at the session.
        if (move.kind === "model" && (await this.#modelStep(move.session, signal)) === "stop") return false;
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
        const session = (await this.writeFinished(found)) ? await core.requireSession(sessionId) : found;
        const batch = signal.aborted
          ? await core.endTurnBatch(
              session,
              { type: "turn.cancelled" },
              "The person stopped the turn.",
              error instanceof ToolsOutlastedStop ? error.reasons : undefined,
            )
          : await core.endTurnBatch(
              session,
              { type: "turn.failed", error: describeFailure(error) },
              failureText(error),
            );
        await this.#commit(sessionId, batch);
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
      // A call still executing ran where that instance died: it may or may not have completed.
      const ending = (await this.writeFinished(session)) ? await core.requireSession(sessionId) : session;
      const interrupted = ending.stepOpen
        ? (await this.#stepCalls(ending)).filter((call) => call.state === "executing")
        : [];
      await this.#commit(
        sessionId,
        await core.endTurnBatch(
          ending,
          { type: "turn.cancelled" },
          "The person stopped the turn.",
          new Map(interrupted.map((call) => [call.toolCallId, STOPPED_WHILE_INTERRUPTED])),
        ),
      );
      this.#logInterrupted(sessionId, interrupted, "a cancelled");
      return { kind: "stop" };
    }
    if (!session.stepOpen) {
      if (session.step < (core.options.maxSteps ?? 16)) return { kind: "model", session };
      const error = { code: "max_steps", message: `The turn made ${session.step} model calls without finishing.` };
      await this.#commit(sessionId, {
        events: [{ type: "turn.failed", turnId: session.turnId!, error }],
        session: { status: "idle" },
      });
      return { kind: "stop" };
    }
    if (await this.writeFinished(session)) return { kind: "again" };
    const calls = await this.#stepCalls(session);
    const interrupted = calls.filter((call) => call.state === "executing");
    if (interrupted.length > 0) {
      // Only a crashed process (a restart, or a dead instance whose turn this one took over)
      // leaves a call executing: it may or may not have finished, so it is not run twice; it
      // gets an error result that says so, and a question it was waiting on is cancelled.
      const message =
        "The server running this tool stopped before it finished; the tool may or may not have completed.";
      const questions = await this.#settleQuestions(
        sessionId,
        interrupted.map((call) => call.toolCallId),
        "The server running the tool stopped while the tool waited for this answer.",
      );
      await this.#commit(sessionId, {
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
    const ready = calls.filter((call) => call.state === "ready");
    if (ready.length > 0) {
      const executing = ready.map((call) => ({ ...call, state: "executing" as const }));
      await this.#commit(sessionId, { toolCalls: executing });
      return { kind: "execute", calls: executing };
    }
    const parked = calls.filter((call) => call.state === "parked");
    if (parked.length > 0) {
      const requestIds = parked.map((call) => call.requestId!);
      await this.#commit(sessionId, {
        events: [{ type: "turn.waiting", turnId: session.turnId!, requestIds }],
        session: { status: "waiting" },
      });
      return { kind: "stop" };
    }
    await this.#commit(sessionId, core.closeStep(calls)!);
    return { kind: "again" };
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

  async #execute(sessionId: string, calls: ToolCallRecord[], signal: AbortSignal): Promise<void> {
    const { core } = this;
    // Every call runs to its end and writes (or keeps) its result before the drive goes on or
    // stops; once the turn is stopped, only within the grace (see `#withinGrace`).
    const unfinished = new Set(calls.map((call) => call.toolCallId));
    const running = Promise.allSettled(
      calls.map(async (call) => {
        const tool = core.tools.get(call.toolName);
        const scope = () => logScope(sessionId, call.turnId, call);
        let outcome: "ok" | "error" = "ok";
        let output: unknown;
        const finished = core.telemetry.toolCall({
          sessionId,
          turnId: call.turnId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          step: call.step,
        });
        try {
          if (!tool) throw new Error(`The tool ${call.toolName} is no longer available on this server.`);
          const approval =
            call.requestId && tool.definition.kind === "server"
              ? { approved: true as const, ...(call.answer as object) }
              : undefined;
          const value = await withinTimeLimit(
            tool.timeoutMs ?? core.options.toolTimeoutMs,
            signal,
            async (callSignal) => {
              const context = {
                sessionId,
                turnId: call.turnId,
                toolCallId: call.toolCallId,
                signal: callSignal,
                ask: <S extends SchemaLike>(question: AskOptions<S>) =>
                  this.#ask(sessionId, call, question, callSignal) as Promise<AskResult<Infer<S>>>,
              };
              return tool.resolve
                ? await tool.resolve(call.answer, { ...context, input: call.input })
                : await tool.execute!(call.input, { ...context, ...(approval ? { approval } : {}) });
            },
            () =>
              core.logger.warn(
                `hitl-kit: ${scope()}: the tool ended after it timed out; the call has its timeout error already, and what the tool returned was dropped.`,
              ),
          );
          output = toJson(value);
        } catch (error) {
          outcome = "error";
          output = { message: error instanceof Error ? error.message : String(error) };
          finished({ outcome, error: { code: errorName(error), message: errorSummary(error) } });
          if (error instanceof ToolTimedOut) {
            core.logger.warn(
              `hitl-kit: ${scope()}: ${error.message} The call got an error result; check whether the tool took effect if it keeps running.`,
            );
          } else if (!signal.aborted) {
            // A Stop aborts its tools on purpose: only a tool that failed on its own is logged.
            core.logger.warn(...failureLine(`hitl-kit: ${scope()}: the tool failed`, error));
          }
        }
        if (outcome === "ok") finished({ outcome });
        unfinished.delete(call.toolCallId);
        try {
          await this.#turnSection(sessionId, () => this.#writeResult(sessionId, call, { outcome, output }, signal));
        } catch (error) {
          if (error instanceof StoreUnavailable) {
            // The call ran: its result waits here for the store, not replaced by a guess.
            const finished = this.#finished.get(sessionId) ?? new Map();
            this.#finished.set(sessionId, finished.set(call.toolCallId, { outcome, output }));
          }
          throw error;
        }
      }),
    );
    const ran = await this.#withinGrace(running, signal, unfinished).catch((error: unknown) => {
      // An instance that lost the turn writes nothing: the one that took it over ends the calls.
      if (error instanceof ToolsOutlastedStop && !(signal.reason instanceof LeaseLost)) {
        for (const call of calls.filter((candidate) => error.reasons.has(candidate.toolCallId))) {
          core.logger.warn(
            `hitl-kit: ${logScope(sessionId, call.turnId, call)}: the tool was still running ${error.graceMs} ms after its turn was stopped (abortGraceMs); the call got a cancelled result, but the tool may or may not complete: check whether it took effect.`,
          );
        }
      }
      throw error;
    });
    const failed = ran.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }

  /**
   * What the tools of a step resolve to; or, when the turn is stopped (`signal` aborts) and
   * they have not all ended `abortGraceMs` later, a {@link ToolsOutlastedStop}: the drive
   * then ends the turn without them (each still running gets a `cancelled` result), and a
   * result one of them writes later is dropped (`#writeResult`).
   */
  #withinGrace<T>(work: Promise<T>, signal: AbortSignal, unfinished: ReadonlySet<string>): Promise<T> {
    const graceMs = this.core.options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let startGrace = () => {};
    const outlasted = new Promise<never>((_resolve, reject) => {
      startGrace = () => {
        timer = setTimeout(() => reject(new ToolsOutlastedStop(graceMs, [...unfinished])), graceMs);
      };
    });
    // Beyond what a timer can wait (about 24.8 days; `Infinity`): the tools end the turn.
    if (graceMs > MAX_TIMER_MS) return work;
    if (signal.aborted) startGrace();
    else signal.addEventListener("abort", startGrace, { once: true });
    return Promise.race([work, outlasted]).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", startGrace);
    });
  }

  /**
   * Writes the results of the session's calls that finished here while the store could not
   * be reached, when they are still executing in the store; answers whether it wrote any.
   * Called in a section of the session, before anything else ends those calls.
   */
  async writeFinished(session: SessionRecord): Promise<boolean> {
    const { sessionId } = session;
    const finished = this.#finished.get(sessionId);
    if (!finished) return false;
    this.#finished.delete(sessionId);
    if (session.status !== "running" && session.status !== "resuming") return false;
    const calls = (await this.#stepCalls(session)).filter(
      (call) => call.state === "executing" && finished.has(call.toolCallId),
    );
    try {
      for (const call of calls) {
        await this.#writeResult(sessionId, call, finished.get(call.toolCallId)!);
        finished.delete(call.toolCallId);
      }
    } catch (error) {
      if (finished.size > 0) this.#finished.set(sessionId, finished);
      throw error;
    }
    return calls.length > 0;
  }

  /**
   * Writes a call's one result (in a section of the turn); a question the tool left
   * unanswered (it did not wait, or it failed) ends with it.
   */
  async #writeResult(
    sessionId: string,
    call: ToolCallRecord,
    { outcome, output }: Pick<ToolCallRecord, "outcome" | "output">,
    signal?: AbortSignal,
  ): Promise<void> {
    // A stopped turn may have ended without this call (its tool outlasted the grace): the
    // call has its one result already, and the turn may be over.
    if (signal?.aborted && !(await this.#stillExecuting(sessionId, call))) {
      this.#asked.delete(call.toolCallId);
      this.core.logger.warn(
        `hitl-kit: ${logScope(sessionId, call.turnId, call)}: the tool ended after its turn was stopped without it; its result was dropped.`,
      );
      return;
    }
    const unanswered = this.#asked.has(call.toolCallId)
      ? await this.#settleQuestions(
          sessionId,
          [call.toolCallId],
          signal?.aborted ? "The person stopped the turn." : "The tool finished without this answer.",
        )
      : { requests: [], events: [] };
    await this.#commit(sessionId, {
      requests: unanswered.requests,
      toolCalls: [{ ...call, state: "done", outcome, output }],
      events: [...unanswered.events, { type: "tool.result", toolCallId: call.toolCallId, outcome: outcome!, output }],
    });
    this.#asked.delete(call.toolCallId);
  }

  async #stillExecuting(sessionId: string, call: ToolCallRecord): Promise<boolean> {
    const calls = await this.core.store.getToolCalls(sessionId, call.turnId, call.step);
    return calls.some((candidate) => candidate.toolCallId === call.toolCallId && candidate.state === "executing");
  }

  /** Settles as cancelled the open questions (`ctx.ask`) of the given calls. */
  async #settleQuestions(sessionId: string, toolCallIds: string[], reason: string) {
    const { core } = this;
    const ids = new Set(toolCallIds);
    const open = (await core.store.getOpenRequests(sessionId)).filter(
      (record) => record.asked && ids.has(record.toolCallId),
    );
    if (open.length === 0) return { requests: [], events: [] };
    const session = await core.requireSession(sessionId);
    const { settlements } = await core.planSettlements(
      session,
      open.map((record) => ({ record, cause: { requestId: record.requestId, action: "cancel" as const, reason } })),
    );
    return {
      requests: settlements.map((settlement) => settlement.request),
      events: settlements.flatMap((settlement) => settlement.events),
    };
  }

  /**
   * Parks a question of a running tool (`ctx.ask`) and waits for its settlement, which
   * {@link RuntimeCore.commit} hands over once written. A cancelled turn rejects the wait
   * (the tool's call then ends as any aborted call does) and settles the request as cancelled.
   */
  async #ask(
    sessionId: string,
    call: ToolCallRecord,
    question: AskOptions,
    signal: AbortSignal,
  ): Promise<AskResult<unknown>> {
    signal.throwIfAborted();
    const { core } = this;
    const answerSchema = toJsonSchema(question.schema);
    const after = question.expireAfter ?? expiryAfter(core.options.expireAfter, call);
    const expiresAt = after === undefined ? undefined : Date.now() + after;
    const requestId = randomId("req");
    const request: InputRequest = {
      requestId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind: "input",
      ...(question.prompt === undefined ? {} : { prompt: question.prompt }),
      input: call.input,
      answerSchema,
      ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
    };
    this.#asked.add(call.toolCallId);
    const answered = new Promise<AskResult<unknown>>((resolve, reject) => {
      core.asks.set(requestId, { schema: question.schema });
      let check: ReturnType<typeof setInterval> | undefined;
      const settle = (outcome: () => void) => {
        core.asks.delete(requestId);
        unsubscribe();
        clearInterval(check);
        signal.removeEventListener("abort", stop);
        outcome();
      };
      const stop = () => settle(() => reject(signal.reason));
      // Whatever settles it (an answer on any instance, expiry, a stopped turn), its
      // `input.resolved` reaches this instance's hub once written.
      const deliver = (resolution: Omit<Resolution, "at">) =>
        settle(() => resolve(askResult(resolution, question.schema, requestId)));
      const unsubscribe = core.hub.subscribe(sessionId, (event) => {
        if (event.type === "input.resolved" && event.requestId === requestId) deliver(event);
      });
      signal.addEventListener("abort", stop, { once: true });
      // Across instances a notification can be lost: the store is asked now and then as well.
      if (core.coordination.shared) {
        check = setInterval(() => {
          void core.store.getRequest(sessionId, requestId).then(
            (record) => {
              if (record?.resolution) deliver(record.resolution);
            },
            () => {}, // the store could not be reached: the next look, or the notification, tells
          );
        }, ASK_CHECK_MS);
        check.unref?.();
      }
    });
    // A turn cancelled while the request is written rejects the wait before anyone awaits it.
    answered.catch(() => {});
    await this.#turnSection(sessionId, () =>
      this.#commit(sessionId, {
        requests: [
          {
            requestId,
            toolCallId: call.toolCallId,
            turnId: call.turnId,
            request,
            schemaHash: schemaHash(answerSchema),
            state: "open",
            asked: true,
            parkedAt: Date.now(),
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
        ],
        events: [{ type: "input.requested", requests: [request] }],
      }),
    );
    // The asker's signal and promise may outlive the question (one shutdown signal for every
    // question, a webhook's promise that never comes): they let go of it once it settles.
    const { signal: withdrawal, answeredElsewhere } = question;
    const withdraw = () =>
      this.#settleAsked(sessionId, call, requestId, {
        requestId,
        action: "cancel",
        reason: withdrawnReason(withdrawal?.reason),
      });
    if (withdrawal?.aborted) await withdraw();
    else withdrawal?.addEventListener("abort", withdraw, { once: true });
    const stopWaiting = whileWanted(answeredElsewhere, ({ value, reason }) =>
      this.#settleAsked(sessionId, call, requestId, {
        requestId,
        action: "accept",
        value,
        ...(reason === undefined ? {} : { reason }),
      }),
    );
    const letGo = () => {
      withdrawal?.removeEventListener("abort", withdraw);
      stopWaiting();
    };
    answered.then(letGo, letGo);
    return answered;
  }

  /**
   * Settles a question on its asker's word, unless it is settled already: cancelled when
   * the asker withdrew it (`ask({ signal })`), accepted when it was answered elsewhere
   * (`ask({ answeredElsewhere })`).
   */
  async #settleAsked(sessionId: string, call: ToolCallRecord, requestId: string, cause: InputResponse): Promise<void> {
    const { core } = this;
    await core.lock
      .run(sessionId, async () => {
        const record = (await core.store.getOpenRequests(sessionId)).find(
          (candidate) => candidate.requestId === requestId,
        );
        if (!record) return;
        const session = await core.requireSession(sessionId);
        const { settlements } = await core.planSettlements(session, [{ record, cause }]);
        await this.#commit(sessionId, {
          requests: settlements.map((settlement) => settlement.request),
          events: settlements.flatMap((settlement) => settlement.events),
        });
      })
      .catch((error: unknown) =>
        core.logger.warn(
          ...failureLine(
            `hitl-kit: ${logScope(sessionId, call.turnId, call)}: could not settle the question ${requestId} (${cause.action})`,
            error,
          ),
        ),
      );
  }

  /** Calls the model for the session's next step and writes what it did; answers whether the turn goes on. */
  async #modelStep(session: SessionRecord, signal: AbortSignal): Promise<"again" | "stop"> {
    const { core } = this;
    const { sessionId } = session;
    const { messages: transcript, check } = await this.#transcripts.get(sessionId, session.transcriptLength, (from) =>
      core.store.readTranscript(sessionId, from),
    );
    const invalid = continueTranscriptCheck(transcript, check) ?? unansweredCalls(check);
    if (invalid) {
      this.#transcripts.forget(sessionId);
      const error = { code: "transcript_invalid", message: `Refused to call the model: ${invalid}` };
      await this.#commit(sessionId, {
        events: [{ type: "turn.failed", turnId: session.turnId!, error }],
        session: { status: "idle" },
      });
      core.logger.error(`hitl-kit: ${logScope(sessionId, session.turnId)}: ${error.message}`);
      return "stop";
    }
    const { system } = core.options;
    const prompt: LanguageModelV4Message[] = [
      ...(system ? [{ role: "system" as const, content: system }] : []),
      ...withTurnBreaks(transcript),
    ];
    // Streamed text reaches the store in batches (a few ms apart), not a transaction per token;
    // what waits when the model is done is written with the step. A store that cannot be
    // reached is waited out, the reply kept here meanwhile, rather than asked of the model again.
    const written = { lastSeq: session.lastSeq };
    const lost = abortedOnlyFor(signal, (reason) => reason instanceof LeaseLost);
    const coalescer = eventCoalescer((events) => this.#writeStreamed(sessionId, events, written, lost));
    const { modelRetries = DEFAULT_MODEL_RETRIES, modelRetryDelayMs = DEFAULT_MODEL_RETRY_DELAY_MS } = core.options;
    let streamed: StepOutput | undefined;
    const { model } = core.options;
    for (let attempt = 0; !streamed; attempt++) {
      let emitted = false;
      const finished = core.telemetry.modelCall({
        sessionId,
        turnId: session.turnId!,
        step: session.step + 1,
        attempt,
        provider: model.provider,
        modelId: model.modelId,
      });
      try {
        streamed = await streamModelStep({
          model,
          callOptions: { ...core.callOptions, prompt, tools: core.modelTools, abortSignal: signal },
          stallMs: core.options.modelStallMs ?? DEFAULT_MODEL_STALL_MS,
          emit: (events) => {
            emitted = true;
            return coalescer.emit(events);
          },
          newMessageId: () => randomId("msg"),
        });
        finished({ outcome: "ok", ...modelReport(streamed.report) });
      } catch (error) {
        // A call that failed before it streamed anything is tried again, as if it never was.
        const wait =
          emitted || signal.aborted || attempt >= modelRetries
            ? undefined
            : modelRetryDelay(error, attempt, modelRetryDelayMs);
        finished(
          signal.aborted
            ? { outcome: "aborted" }
            : {
                outcome: "error",
                error: { code: describeFailure(error).code, message: errorSummary(error) },
                ...(wait === undefined ? {} : { retryInMs: wait }),
              },
        );
        if (wait === undefined) {
          // A driver that lost the turn writes nothing more: the new one abandons what it streamed.
          if (!(signal.reason instanceof LeaseLost)) await coalescer.flush();
          throw error;
        }
        // A closing runtime makes no more calls: the turn stays running in the store, for the next start.
        if (this.#stopped) throw new LeftForRecovery(sessionId, error);
        core.logger.warn(
          `hitl-kit: ${logScope(sessionId, session.turnId)}: the model call failed; trying again in ${wait} ms (retry ${attempt + 1} of ${modelRetries}): ${errorSummary(error)}`,
        );
        await delay(wait, signal, this.#closing.signal).catch((reason: unknown) => {
          throw this.#closing.signal.aborted && !signal.aborted ? new LeftForRecovery(sessionId, error) : reason;
        });
      }
    }
    const streamedEvents = await coalescer.drain();
    const { output, renamed } = uniqueToolCallIds(streamed, check.called, toolCallId);
    for (const call of renamed) {
      core.logger.warn(
        `hitl-kit: ${logScope(sessionId, session.turnId)}: the model gave a ${call.toolName} call the id "${call.modelId}", ` +
          `which is empty or already used; it runs as ${call.id}.`,
      );
    }
    // The session as the step began: while a turn runs only its driver changes the fields read
    // here (the turn, its step, the approved tools), and a driver that lost the turn stops at the section.
    const current = session;
    for (let tries = 0; ; tries++) {
      try {
        if (tries > 0) {
          await this.#stillHolds(sessionId);
          // The step's write may have been applied before the store went away: its step is then recorded.
          const now = await core.requireSession(sessionId);
          if (now.turnId === current.turnId && now.step > current.step) {
            this.#before.delete(sessionId);
            core.hub.publish(sessionId, await core.store.readEvents(sessionId, written.lastSeq));
            return now.status === "running" || now.status === "resuming" ? "again" : "stop";
          }
        }
        return await this.#writeStep(sessionId, current, output, streamedEvents, signal);
      } catch (error) {
        await this.#waitForStore(sessionId, error, tries, lost);
      }
    }
  }

  /** Writes what a model step did, once its stream was read; answers whether the turn goes on. */
  async #writeStep(
    sessionId: string,
    current: SessionRecord,
    output: StepOutput,
    streamedEvents: EventInput[],
    signal: AbortSignal,
  ): Promise<"again" | "stop"> {
    const { core } = this;
    return this.#turnSection(sessionId, async () => {
      // Stopped once the stream was read (also while the step waited for this section, which
      // the cancel held): what it streamed is written, unless the turn is no longer this
      // instance's, and the drive ends the turn, not parked or run on. The step's calls are
      // dropped, as a stream cut short is: the model never sees them.
      if (signal.aborted) {
        if (!(signal.reason instanceof LeaseLost)) await this.#commit(sessionId, { events: streamedEvents });
        throw signal.reason;
      }
      const started: EventInput[] = [];
      let messageId = output.messageId;
      if (!messageId && output.toolCalls.length > 0) {
        messageId = randomId("msg");
        started.push({ type: "message.started", messageId, role: "assistant" });
      }
      const plan = messageId
        ? await planStep({
            calls: output.toolCalls,
            messageId,
            turnId: current.turnId!,
            step: current.step + 1,
            tools: core.tools,
            approvedTools: new Set(current.approvedTools),
            expiresAt: (call) => expiryOf(core.options.expireAfter, call),
          })
        : { calls: [], requests: [], events: [] };
      const finished = output.toolCalls.length === 0;
      // A step whose calls all wait for people (or failed at once) parks in the same write.
      const parked = plan.calls.filter((call) => call.state === "parked");
      const parks = parked.length > 0 && plan.calls.every((call) => call.state === "parked" || call.state === "done");
      const status = finished ? "idle" : parks ? "waiting" : "running";
      await this.#commit(sessionId, {
        events: [
          ...streamedEvents,
          ...started,
          ...plan.events,
          ...(finished ? [{ type: "turn.completed" as const, turnId: current.turnId! }] : []),
          ...(parks
            ? [
                {
                  type: "turn.waiting" as const,
                  turnId: current.turnId!,
                  requestIds: parked.map((call) => call.requestId!),
                },
              ]
            : []),
        ],
        ...(output.message.content.length > 0 ? { transcript: [output.message] } : {}),
        toolCalls: plan.calls,
        requests: plan.requests,
        session: { step: current.step + 1, stepOpen: !finished, status },
      });
      return status === "running" ? "again" : "stop";
    });
  }
}

type ExpireAfter = number | ((call: { toolName: string; input: unknown }) => number | undefined) | undefined;

/** The result of a call a stopped turn found executing where its instance died (a restart, a takeover). */
const STOPPED_WHILE_INTERRUPTED =
  "The person stopped the turn while this tool ran, and the server running it stopped before it finished: it may or may not have completed.";

/** How long the model may send nothing before its call is stopped, by default (`modelStallMs`). */
const DEFAULT_MODEL_STALL_MS = 120_000;

/** How long a stopped turn waits for its running tools by default (`abortGraceMs`). */
const DEFAULT_ABORT_GRACE_MS = 5_000;

/** The runtime closed while a model call waited to be tried again: the turn is left as it is, for the next start. */
class LeftForRecovery extends Error {
  constructor(sessionId: string, cause: unknown) {
    super(
      `hitl-kit: session ${sessionId}: the runtime closed before a failed model call was tried again; the turn goes on at the next start.`,
      { cause },
    );
    this.name = "LeftForRecovery";
  }
}

/** A stopped turn's tools had not all ended within the grace: `reasons` is what the results of those still running say. */
class ToolsOutlastedStop extends Error {
  readonly reasons: ReadonlyMap<string, string>;
  constructor(
    readonly graceMs: number,
    running: readonly string[],
  ) {
    const reason = `The person stopped the turn while this tool ran, and it had not stopped ${graceMs} ms later: it may or may not have completed.`;
    super(reason);
    this.name = "ToolsOutlastedStop";
    this.reasons = new Map(running.map((toolCallId) => [toolCallId, reason]));
  }
}

/** How often a question waiting across instances reads its request, in case a notification was lost. */
const ASK_CHECK_MS = 5_000;

/**
 * A settled question as the asking tool receives it: an answer parsed by the question's own
 * schema, here, where the tool waits. The instance that took the answer checked it against
 * that schema when the question was asked there, else against its JSON Schema, which lacks
 * refinements and transforms: an answer that passed that but fails the schema itself is
 * never handed to the tool, whose `ask` throws instead.
 */
async function askResult(
  { action, value, reason }: Omit<Resolution, "at">,
  schema: SchemaLike,
  requestId: string,
): Promise<AskResult<unknown>> {
  const because = reason === undefined ? {} : { reason };
  if (action !== "accept") return action === "expire" ? { action } : { action, ...because };
  const checked = await validate(schema, value);
  if (!checked.ok) {
    throw new Error(
      `The answer to ${requestId} was taken by another server instance, which could check it against the question's JSON Schema only, and it fails the question's own schema (${issueSummary(checked.issues)}).`,
    );
  }
  return { action, value: checked.value, ...because };
}

/**
 * Calls `act` with what `promise` resolves to, until the returned function is called. The
 * promise holds only a small holder, emptied then, so one that never settles keeps nothing
 * of the caller's.
 */
function whileWanted<T>(promise: PromiseLike<T> | undefined, act: (value: T) => unknown): () => void {
  const holder: { act?: (value: T) => unknown } = { act };
  promise?.then(
    (value) => void holder.act?.(value),
    () => {},
  );
  return () => delete holder.act;
}

function expiryAfter(option: ExpireAfter, call: { toolName: string; input: unknown }) {
  return typeof option === "function" ? option(call) : option;
}

function expiryOf(option: ExpireAfter, call: { toolName: string; input: unknown }) {
  const after = expiryAfter(option, call);
  return after === undefined ? undefined : Date.now() + after;
}

/** Tool results travel as JSON: `undefined` becomes `null`; what JSON cannot carry is an error. */
function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value));
}

/** What telemetry reports of a model call that streamed to its end. */
function modelReport({ finishReason, usage, responseId, responseModelId }: StepOutput["report"]) {
  const counts: ModelUsage = {};
  const count = (name: keyof ModelUsage, value: number | undefined) => {
    if (value !== undefined) counts[name] = value;
  };
  count("inputTokens", usage?.inputTokens.total);
  count("outputTokens", usage?.outputTokens.total);
  count("reasoningTokens", usage?.outputTokens.reasoning);
  count("cachedInputTokens", usage?.inputTokens.cacheRead);
  return {
    ...(finishReason === undefined ? {} : { finishReason }),
    ...(Object.keys(counts).length > 0 ? { usage: counts } : {}),
    ...(responseId === undefined ? {} : { responseId }),
    ...(responseModelId === undefined ? {} : { responseModelId }),
  };
}

/** An error's name (`TypeError`), or `Error` for what is not one: a low-cardinality code for telemetry. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ModelStalled) return { code: error.code, message: error.message };
  const status = (error as { statusCode?: number }).statusCode;
  return { code: status ? `model_${status}` : "model_error", message: failureText(error) };
}

function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The reason a withdrawn question gives: the abort reason's message, or a default. */
function withdrawnReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return typeof reason === "string" ? reason : "The question was withdrawn.";
}
