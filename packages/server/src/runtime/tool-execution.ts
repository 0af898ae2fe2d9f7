import type { Infer, SchemaLike } from "@hitl-kit/protocol";
import type { SessionRecord, ToolCallRecord } from "../store/records.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { LeaseLost } from "./coordination.js";
import type { AskOptions, AskResult } from "./implement.js";
import { errorSummary, failureLine, logScope } from "./logged-error.js";
import { MAX_TIMER_MS } from "./model-step.js";
import type { PersonWaits } from "./person-waits.js";
import type { RuntimeCore } from "./runtime-core.js";
import { serverStopped, toolEnded, whyStopped } from "./stop-reasons.js";
import type { ToolQuestions } from "./tool-questions.js";
import { outOfTimeReason, ToolTimedOut, withinTimeLimit } from "./tool-timeout.js";
import type { TurnWriter } from "./turn-writer.js";

/**
 * Runs a step's ready tool calls and writes each one's one result: within the tool's time
 * limit, and once the turn is stopped, within the grace (`abortGraceMs`). A result that
 * cannot be written while the store is away waits here for the session's next drive.
 */
export class ToolExecution {
  /**
   * Per session, the results of calls that finished while the store could not be reached:
   * written by the session's next drive, which finds the calls still executing.
   */
  readonly #finished = new Map<string, Map<string, CallEnd>>();

  constructor(
    private readonly core: RuntimeCore,
    private readonly writer: TurnWriter,
    private readonly questions: ToolQuestions,
    private readonly waits: PersonWaits,
  ) {}

  /** The calls whose results wait here for the store, by session. */
  waitingForStore(): [sessionId: string, toolCallIds: string[]][] {
    return [...this.#finished].map(([sessionId, calls]) => [sessionId, [...calls.keys()]]);
  }

  /** Forgets the results of the session's calls kept for the store's return (they were written, or are left to recovery). */
  dropFinished(sessionId: string): void {
    this.#finished.delete(sessionId);
  }

  /** Runs a step's ready calls in the session (`owner`'s, for the tools' `ctx.owner`). */
  async execute(
    sessionId: string,
    owner: string | undefined,
    calls: ToolCallRecord[],
    signal: AbortSignal,
  ): Promise<void> {
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
        let unanswered: string | undefined;
        let thrown: unknown;
        const start = {
          sessionId,
          turnId: call.turnId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          step: call.step,
        };
        const finished = core.telemetry.toolCall(start);
        try {
          if (!tool) throw new Error(`The tool ${call.toolName} is no longer available on this server.`);
          const approval =
            call.requestId && tool.definition.kind === "server"
              ? { approved: true as const, ...(call.answer as object) }
              : undefined;
          this.waits.running(sessionId, 1);
          let questions = 0;
          const value = await withinTimeLimit(
            tool.timeoutMs ?? core.options.toolTimeoutMs,
            signal,
            async (callSignal) => {
              const context = {
                sessionId,
                ...(owner === undefined ? {} : { owner }),
                turnId: call.turnId,
                toolCallId: call.toolCallId,
                attempt: call.runs ?? 1,
                signal: callSignal,
                ask: <S extends SchemaLike>(question: AskOptions<S>) =>
                  this.questions.ask(sessionId, call, question, callSignal, questions++) as Promise<
                    AskResult<Infer<S>>
                  >,
              };
              return core.telemetry.runToolCall(start, async () =>
                tool.resolve
                  ? await tool.resolve(call.answer, { ...context, input: call.input })
                  : await tool.execute!(call.input, { ...context, ...(approval ? { approval } : {}) }),
              );
            },
            () =>
              core.logger.warn(
                `hitl-kit: ${scope()}: the tool ended after it timed out; the call has its timeout error already, and what the tool returned was dropped.`,
              ),
          ).finally(() => this.waits.running(sessionId, -1));
          output = toResult(value, call.toolName, core.options.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES);
        } catch (error) {
          thrown = error;
          outcome = "error";
          output = { message: error instanceof Error ? error.message : String(error) };
          finished({ outcome, error: { code: errorName(error), message: errorSummary(error) } });
          if (error instanceof ToolTimedOut) {
            unanswered = outOfTimeReason(error.timeoutMs);
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
        if (
          outcome === "error" &&
          signal.reason instanceof LeaseLost &&
          (thrown === signal.reason || tool?.rerunAfterRestart)
        ) {
          // This instance left the turn (it closes, or another took it over), and the tool gave
          // up with the signal's reason (as `ask`, `throwIfAborted()` and `fetch` throw it) or is
          // to run again: the turn's next driver gives the call its result, or runs the tool
          // again. A tool that threw its own error (it stopped, and says where) keeps it.
          this.questions.forgetAsked(call.toolCallId);
          if (tool?.rerunAfterRestart) await this.#noteLeft(sessionId, call);
          return;
        }
        const end: CallEnd = { outcome, output, ...(unanswered === undefined ? {} : { unanswered }) };
        try {
          await this.writer.section(sessionId, () => this.#writeResult(sessionId, call, end, signal));
        } catch (error) {
          if (error instanceof StoreUnavailable) {
            // The call ran: its result waits here for the store, not replaced by a guess.
            const finished = this.#finished.get(sessionId) ?? new Map();
            this.#finished.set(sessionId, finished.set(call.toolCallId, end));
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
        timer = setTimeout(() => reject(new ToolsOutlastedStop(graceMs, [...unfinished], whyStopped(signal))), graceMs);
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
    const calls = (await this.core.store.getToolCalls(sessionId, session.turnId!, session.step)).filter(
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
   * unanswered (it did not wait, or it failed) ends with it, cancelled for `unanswered`'s
   * reason when the call has one.
   */
  async #writeResult(
    sessionId: string,
    call: ToolCallRecord,
    { outcome, output, unanswered: why }: CallEnd,
    signal?: AbortSignal,
  ): Promise<void> {
    // A stopped turn may have ended without this call (its tool outlasted the grace): the
    // call has its one result already, and the turn may be over.
    if (signal?.aborted && !(await this.#stillExecuting(sessionId, call))) {
      this.questions.forgetAsked(call.toolCallId);
      this.core.logger.warn(
        `hitl-kit: ${logScope(sessionId, call.turnId, call)}: the tool ended after its turn was stopped without it; its result was dropped.`,
      );
      return;
    }
    // A run after a restart may leave open a question its earlier run asked and it did not.
    const unanswered =
      this.questions.asked(call.toolCallId) || (call.runs ?? 1) > 1
        ? await this.questions.cancelBatch(
            sessionId,
            [call.toolCallId],
            signal?.reason instanceof LeaseLost
              ? serverStopped
              : signal?.aborted
                ? whyStopped(signal)
                : (why ?? (outcome === "error" ? toolEnded.error : toolEnded.ok)),
          )
        : { requests: [], events: [] };
    await this.writer.commit(sessionId, {
      requests: unanswered.requests,
      toolCalls: [{ ...call, state: "done", outcome, output }],
      events: [...unanswered.events, { type: "tool.result", toolCallId: call.toolCallId, outcome: outcome!, output }],
    });
    this.questions.forgetAsked(call.toolCallId);
  }

  /**
   * Notes that the call's run ended because this server left the turn on purpose (it closes),
   * so it does not count against the limit of runs after a crash; not noted (the lease or
   * the store is gone), the run counts as one a crash cut off.
   */
  async #noteLeft(sessionId: string, call: ToolCallRecord): Promise<void> {
    await this.writer
      .section(sessionId, () => this.writer.commit(sessionId, { toolCalls: [{ ...call, left: (call.left ?? 0) + 1 }] }))
      .catch(() => {});
  }

  async #stillExecuting(sessionId: string, call: ToolCallRecord): Promise<boolean> {
    const calls = await this.core.store.getToolCalls(sessionId, call.turnId, call.step);
    return calls.some((candidate) => candidate.toolCallId === call.toolCallId && candidate.state === "executing");
  }
}

/** How long a stopped turn waits for its running tools by default (`abortGraceMs`). */
const DEFAULT_ABORT_GRACE_MS = 5_000;

/** How a call ended: its result, and the reason a question it left open is cancelled with, when not the default. */
type CallEnd = Pick<ToolCallRecord, "outcome" | "output"> & { unanswered?: string };

/** A stopped turn's tools had not all ended within the grace: `reasons` is what the results of those still running say. */
export class ToolsOutlastedStop extends Error {
  readonly reasons: ReadonlyMap<string, string>;
  constructor(
    readonly graceMs: number,
    running: readonly string[],
    /** What stopped the turn (`whyStopped`). */
    why: string,
  ) {
    const reason = `${why.replace(/\.$/, "")} while this tool ran, and it had not stopped ${graceMs} ms later: it may or may not have completed.`;
    super(reason);
    this.name = "ToolsOutlastedStop";
    this.reasons = new Map(running.map((toolCallId) => [toolCallId, reason]));
  }
}

/** The largest tool result kept by default, in bytes of JSON (`maxToolResultBytes`). */
const DEFAULT_MAX_TOOL_RESULT_BYTES = 1_000_000;

/**
 * A tool's return value as its call's result: JSON (`undefined` becomes `null`). One JSON
 * cannot carry (a BigInt, a cycle), or past `maxBytes`, is an error that says the tool ran.
 */
function toResult(value: unknown, toolName: string, maxBytes: number): unknown {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      `The tool ${toolName} ran, but what it returned cannot be sent as JSON (${why}), so its result is this error; it may have taken effect.`,
      { cause },
    );
  }
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) {
    throw new Error(
      `The tool ${toolName} ran, but its result is ${bytes} bytes of JSON, over the ${maxBytes} this server keeps (maxToolResultBytes), so its result is this error; it may have taken effect. Return less: a summary, or an id to fetch the rest by.`,
    );
  }
  return JSON.parse(text);
}

/** An error's name (`TypeError`), or `Error` for what is not one: a low-cardinality code for telemetry. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}
