import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
} from "@ai-sdk/provider";
import { type EventInput, ProtocolError, type SchemaLike, toJsonSchema } from "@hitl-kit/protocol";
import type { SessionRecord, SessionStore, ToolCallRecord, WriteBatch, WriteResult } from "../store/records.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { type Coordination, localCoordination, type SessionLocker } from "./coordination.js";
import type { EventHub } from "./event-hub.js";
import { failureLine } from "./logged-error.js";
import { type ModelCallOptions, modelCallOptions } from "./model-call-options.js";
import { type PlanSettlementInput, planSettlement, type Settlement } from "./plan-settlement.js";
import { stopReasons } from "./stop-reasons.js";
import type { RuntimeTelemetry } from "./telemetry.js";
import { TelemetryReporter } from "./telemetry-reporter.js";
import { type RegisteredTool, type RuntimeTool, registerTools } from "./tool-registry.js";
import { assertTimeout } from "./tool-timeout.js";
import { toolResultMessage } from "./transcript.js";

/** Options of `createAgentRuntime`. */
export interface AgentRuntimeOptions {
  /** Any AI SDK language model (`LanguageModelV4`): a provider's, or `scriptedModel`. */
  model: LanguageModelV4;
  /** Client tool definitions and implemented server tools. */
  tools?: readonly RuntimeTool[];
  /**
   * Where sessions live: `sqliteStore(path)` for one process, `postgresStore(url)` for several
   * instances on one database, `memoryStore()` for tests.
   */
  store: SessionStore;
  /** The system prompt. */
  system?: string;
  /** The most model calls one turn may make (default 16); past it the turn fails with `max_steps`. */
  maxSteps?: number;
  /**
   * A new message while requests are open: `cancel` (default) settles them as cancelled,
   * saying the person moved on, then runs the message; `reject` answers 409.
   */
  whileParked?: "cancel" | "reject";
  /**
   * How long a stopped turn waits for its running tools to end once their `ctx.signal`
   * aborts (default 5,000 ms). A tool that has not ended by then gets a `cancelled` result
   * saying it may or may not have completed, and the turn ends; its own result, if it comes
   * later, is dropped (and logged), so the call keeps its one result. `Infinity` waits for
   * the tools however long they run.
   */
  abortGraceMs?: number;
  /**
   * The longest one tool call may run (its `execute`, or a client tool's `resolve`) before it
   * is given up (default: no limit). Past it, the tool's `ctx.signal` aborts and the call gets
   * one `error` result saying it timed out after that many milliseconds; the model sees it and
   * the turn goes on. What the tool returns later is dropped (and logged), so the call keeps
   * its one result. A tool's own limit (`implement(tool, execute, { timeoutMs })`) replaces it.
   * There is no default limit because the runtime cannot know how long a tool may take (a
   * build, a payment, a question to the person through `ctx.ask`, which the limit counts too),
   * and a call given up may still take effect: set one that fits your tools.
   * `Infinity`: no limit.
   */
  toolTimeoutMs?: number;
  /**
   * The largest result a tool call may have, in bytes of JSON (default 1,000,000). The result
   * is stored, streamed to the browser, kept in every snapshot and sent to the model on every
   * later call of the session, so one past it becomes an `error` result that says the tool
   * ran and may have taken effect, and to return less (a summary, or an id to fetch the rest
   * by). `Infinity`: no limit.
   */
  maxToolResultBytes?: number;
  /**
   * How many times a model call that failed before it streamed anything is tried again
   * (default 2), when trying again can help: the provider timed out, was overloaded or rate
   * limited (408, 409, 429, 5xx), the connection dropped, or the call stalled
   * (`modelStallMs`). A call that failed after it streamed text fails the turn, as does one
   * the provider refused (400, 401, …). 0 never retries.
   */
  modelRetries?: number;
  /**
   * The wait before the first retry of a model call (default 2,000 ms), doubled for each one
   * after; a `retry-after` the provider sends, up to a minute, is heeded instead. A Stop during
   * the wait ends the turn at once.
   */
  modelRetryDelayMs?: number;
  /**
   * The longest the model may send nothing, before its first part or between two, before its
   * call is stopped (default 120,000 ms): a call stalled before it streamed anything is tried
   * again (`modelRetries`), one stalled mid-reply fails the turn with `model_stalled`.
   * `Infinity` waits however long the model takes.
   */
  modelStallMs?: number;
  /** When parked requests expire: milliseconds after parking, or per call; `undefined` never. */
  expireAfter?: number | ((call: { toolName: string; input: unknown }) => number | undefined);
  /**
   * Retention: sessions with no activity (no event, no change) for this many
   * milliseconds are deleted as by `deleteSession` — open requests cancelled first.
   * `undefined` (default) keeps sessions forever.
   */
  deleteIdleAfter?: number;
  /** The most sessions one owner may have; creating one more fails with `session_limit` (409). Default: no cap. */
  maxSessionsPerOwner?: number;
  /**
   * The title a session is listed under (`GET /sessions`), from the person's message: called
   * for each message until it returns one. Default: the first message's first 80 characters.
   * Return `undefined` for none, as where people write personal data into a first message.
   */
  sessionTitle?: (message: string) => string | undefined;
  /**
   * Extra model call options (temperature, maxOutputTokens, providerOptions, …). Unless
   * `providerOptions.openai.store` is set, OpenAI is asked not to keep responses
   * (`store: false`): the session keeps its transcript, and does not depend on OpenAI's.
   */
  callOptions?: Omit<LanguageModelV4CallOptions, "prompt" | "tools" | "abortSignal">;
  /**
   * Shapes what each model call is sent of the session's transcript, which the store keeps
   * whole: to keep a long session within the model's context window (`keepLastMessages(200)`),
   * or to stand a summary in for its start. It gets the transcript, oldest first (no system
   * prompt), and returns the messages to send. What it returns is checked as the stored
   * transcript is — every tool call followed by its one result — and one that breaks that
   * fails the turn with `transcript_invalid` instead of reaching the model.
   */
  prepareTranscript?: (
    messages: readonly LanguageModelV4Message[],
    call: { sessionId: string; turnId: string; step: number },
  ) => readonly LanguageModelV4Message[] | Promise<readonly LanguageModelV4Message[]>;
  /**
   * Where the runtime reports what it cannot answer to anyone (default: console). Each call
   * gets one line that reads on its own (the session, turn and call, and a failure's causes),
   * and for a failure a redacted copy of the error as a second argument: for pino, pass
   * `{ warn: (message, err) => log.warn({ err }, message), error: … }`.
   */
  logger?: Pick<Console, "warn" | "error">;
  /**
   * Hooks for metrics and traces: runs of turns, model calls (duration, finish reason, token
   * usage, retries, errors), tool executions, parked and settled requests (how long people
   * took), store outages and open event streams. Called synchronously and never awaited; a
   * hook that throws is logged once and the turn goes on. See {@link RuntimeTelemetry}.
   */
  telemetry?: RuntimeTelemetry;
}

/** A question a running tool waits on in this process (`ctx.ask`), by request id: its answer is checked against `schema`. */
export interface PendingAsk {
  schema: SchemaLike;
}

/** The state and helpers the runtime's parts share. */
export class RuntimeCore {
  /** One process's, or — on a store several instances share — theirs together. */
  readonly coordination: Coordination;
  readonly hub: EventHub;
  readonly lock: SessionLocker;
  readonly asks = new Map<string, PendingAsk>();
  readonly tools: Map<string, RegisteredTool>;
  readonly modelTools: LanguageModelV4FunctionTool[];
  /** What every model call gets besides its prompt, tools and signal (see {@link modelCallOptions}). */
  readonly callOptions: ModelCallOptions;
  readonly store: SessionStore;
  readonly logger: Pick<Console, "warn" | "error">;
  /** Calls the `telemetry` hooks. */
  readonly telemetry: TelemetryReporter;

  constructor(readonly options: AgentRuntimeOptions) {
    const grace = options.abortGraceMs;
    if (grace !== undefined && !(grace >= 0)) {
      throw new RangeError(
        `abortGraceMs must be 0 or more milliseconds (Infinity: wait for the tools however long they run), not ${grace}.`,
      );
    }
    assertTimeout(options.toolTimeoutMs, "toolTimeoutMs");
    const resultBytes = options.maxToolResultBytes;
    if (resultBytes !== undefined && !(resultBytes > 0)) {
      throw new RangeError(`maxToolResultBytes must be more than 0 bytes (Infinity: no limit), not ${resultBytes}.`);
    }
    const { modelRetries: retries, modelRetryDelayMs: retryDelay, modelStallMs: stall } = options;
    if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) {
      throw new RangeError(`modelRetries must be a whole number, 0 or more (0: never retry), not ${retries}.`);
    }
    if (retryDelay !== undefined && !(retryDelay >= 0 && Number.isFinite(retryDelay))) {
      throw new RangeError(`modelRetryDelayMs must be a finite number of milliseconds, 0 or more, not ${retryDelay}.`);
    }
    if (stall !== undefined && !(stall > 0)) {
      throw new RangeError(
        `modelStallMs must be more than 0 milliseconds (Infinity: wait however long the model takes), not ${stall}.`,
      );
    }
    this.logger = options.logger ?? console;
    this.telemetry = new TelemetryReporter(options.telemetry, this.logger);
    this.store = this.telemetry.observedStore(options.store);
    this.coordination = options.store.coordinate?.({ logger: this.logger }) ?? localCoordination();
    this.hub = this.coordination.hub;
    this.lock = this.coordination.lock;
    this.tools = registerTools(options.tools ?? []);
    this.callOptions = modelCallOptions(options.callOptions);
    this.modelTools = [...this.tools.values()].map(({ definition }) => ({
      type: "function",
      name: definition.name,
      description: definition.description,
      inputSchema: toJsonSchema(definition.inputSchema) as LanguageModelV4FunctionTool["inputSchema"],
    }));
  }

  /** When each kind of store trouble was last logged (see {@link trouble}). */
  readonly #troubleAt = new Map<string, number>();

  /**
   * Logs that `what` failed. A store that cannot be reached fails the same way again and
   * again while it is away: that is logged as one line, at most every 10 s per `what`;
   * anything else every time, with its stack.
   */
  trouble(what: string, error: unknown): void {
    if (!(error instanceof StoreUnavailable)) {
      this.logger.error(...failureLine(`hitl-kit: ${what}`, error));
      return;
    }
    const now = Date.now();
    if (now - (this.#troubleAt.get(what) ?? Number.NEGATIVE_INFINITY) < 10_000) return;
    this.#troubleAt.set(what, now);
    this.logger.warn(`hitl-kit: ${what}: ${error.message}`);
  }

  /** Told of each request a write opens with an expiry: the runtime's expiry timer. */
  expiry: { opened(expiresAt: number): void } | undefined;

  /**
   * Writes a batch and, when it applied, publishes its events to this process's streams
   * and tells the expiry timer of the requests it opened.
   */
  async commit(sessionId: string, batch: WriteBatch): Promise<WriteResult> {
    const result = await this.store.write(sessionId, batch);
    if (!result.ok) return result;
    this.hub.publish(sessionId, result.events);
    this.telemetry.committed(sessionId, batch);
    for (const request of batch.requests ?? []) {
      if (request.state === "open" && request.expiresAt !== undefined) this.expiry?.opened(request.expiresAt);
    }
    return result;
  }

  /** Like {@link commit}, for writes whose guards cannot fail; a refusal is a bug. */
  async mustCommit(sessionId: string, batch: WriteBatch): Promise<void> {
    const result = await this.commit(sessionId, batch);
    if (!result.ok) throw new Error(`Write to session ${sessionId} refused (${result.reason}).`);
  }

  /** The session, or a `not_found` error. */
  async requireSession(sessionId: string): Promise<SessionRecord> {
    const session = await this.store.getSession(sessionId);
    if (!session) throw new ProtocolError("not_found", `There is no session ${sessionId}.`);
    return session;
  }

  /**
   * Plans settlements of requests, looking up each request's call and tool; answers them
   * with the current step's calls as they will be once the settlements are written.
   */
  async planSettlements(
    session: SessionRecord,
    items: PlanSettlementInput[],
  ): Promise<{ settlements: Settlement[]; stepCalls: ToolCallRecord[] }> {
    const calls = session.turnId ? await this.store.getToolCalls(session.sessionId, session.turnId, session.step) : [];
    const settlements = await Promise.all(
      items.map(({ record, cause }) => {
        const call = calls.find((candidate) => candidate.toolCallId === record.toolCallId);
        if (!call) throw new Error(`Request ${record.requestId} has no tool call ${record.toolCallId}.`);
        const tool = this.tools.get(record.request.toolName);
        return planSettlement(record, call, tool, cause, this.asks.get(record.requestId)?.schema);
      }),
    );
    const settled = new Map(settlements.map(({ call }) => [call.toolCallId, call]));
    return { settlements, stepCalls: calls.map((call) => settled.get(call.toolCallId) ?? call) };
  }

  /**
   * What closes a step whose calls all have their results: the tool message that answers
   * them, in the transcript, and the step marked closed. `undefined` while a call has none.
   */
  closeStep(calls: readonly ToolCallRecord[]): WriteBatch | undefined {
    if (calls.some((call) => call.state !== "done")) return undefined;
    return { transcript: [toolResultMessage(calls)], session: { stepOpen: false } };
  }

  /**
   * Ends a turn that cannot go on — cancelled, failed or abandoned for a new message —
   * keeping every call's one result: open requests are settled as cancelled, calls that
   * had not finished get a `cancelled` (or `error`) result, the step's results go to the
   * transcript, and any message still streaming is completed. `callReasons` gives some
   * calls' results their own reason instead of `reason`, by tool call id.
   */
  async endTurnBatch(
    session: SessionRecord,
    ending: { type: "turn.cancelled" } | { type: "turn.failed"; error: { code: string; message: string } },
    reason: string,
    callReasons?: ReadonlyMap<string, string>,
  ): Promise<WriteBatch> {
    const { sessionId, turnId } = session;
    if (!turnId) return { session: { status: "idle" } };
    const open = await this.store.getOpenRequests(sessionId);
    const { settlements, stepCalls: calls } = await this.planSettlements(
      session,
      open.map((record) => ({
        record,
        cause: {
          requestId: record.requestId,
          action: "cancel" as const,
          reason,
          ...(ending.type === "turn.failed" ? { reasonCode: "turn_failed" as const } : {}),
        },
      })),
    );
    const events: EventInput[] = settlements.flatMap((settlement) => settlement.events);
    const outcome = ending.type === "turn.cancelled" ? "cancelled" : "error";
    const finished: ToolCallRecord[] = calls.map((call) => {
      if (call.state === "done") return call;
      // An approved call waiting for the step's other answers: the person did answer it.
      const approvedNotRun =
        call.state === "ready" &&
        call.requestId !== undefined &&
        this.tools.get(call.toolName)?.definition.kind === "server";
      const because = callReasons?.get(call.toolCallId) ?? (approvedNotRun ? notRunReason(reason) : reason);
      const output = outcome === "cancelled" ? { reason: because } : { message: because };
      events.push({ type: "tool.result", toolCallId: call.toolCallId, outcome, output });
      return { ...call, state: "done", outcome, output };
    });
    for (const messageId of await this.streamingMessageIds(sessionId)) {
      events.unshift({ type: "message.completed", messageId });
    }
    events.push({ ...ending, turnId });
    return {
      events,
      requests: settlements.map((settlement) => settlement.request),
      toolCalls: finished,
      ...(session.stepOpen && finished.length > 0 ? { transcript: [toolResultMessage(finished)] } : {}),
      session: { status: "idle", stepOpen: false },
    };
  }

  /**
   * What ends the messages a driver that died (or lost its turn) left streaming, before the
   * step runs again: each is completed, then abandoned, so clients drop its text rather than
   * show it twice (and one that skips event types it does not know still shows it complete).
   * `undefined` when nothing was cut off.
   */
  async cutOffBatch(session: SessionRecord): Promise<WriteBatch | undefined> {
    // With the step open, the model's message is in the transcript: the step does not run
    // again. Nor does it in a turn the person stopped: its message stays, as a Stop leaves it.
    if (session.stepOpen || session.cancelRequested === session.turnId) return undefined;
    const open = await this.streamingMessageIds(session.sessionId);
    if (open.length === 0) return undefined;
    return {
      events: open.flatMap((messageId) => [
        { type: "message.completed" as const, messageId },
        { type: "message.abandoned" as const, messageId },
      ]),
    };
  }

  /** Messages that started streaming and never completed (after a crash or an abort). */
  streamingMessageIds(sessionId: string): Promise<string[]> {
    return this.store.streamingMessageIds(sessionId);
  }
}

/** What an approved call that had not run yet says when its turn ends for `reason`. */
function notRunReason(reason: string): string {
  return reason === stopReasons.message
    ? "The person sent a new message before this approved call ran, so it did not run."
    : `${reason} The call was approved but had not run yet, so it did not run.`;
}
