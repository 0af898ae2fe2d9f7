import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { EventInput } from "@hitl-kit/protocol";
import type { SessionRecord } from "../store/records.js";
import { LeaseLost } from "./coordination.js";
import { eventCoalescer } from "./event-coalescer.js";
import { randomId, toolCallId } from "./ids.js";
import { errorSummary, logScope } from "./logged-error.js";
import { DEFAULT_MODEL_RETRIES, DEFAULT_MODEL_RETRY_DELAY_MS, delay, modelRetryDelay } from "./model-retry.js";
import { ModelStalled, type StepOutput, streamModelStep } from "./model-step.js";
import { abortedOnlyFor, findWritten, isPassingOutage, outageDelay } from "./outage-wait.js";
import { expiryOf, planStep } from "./plan-step.js";
import type { RuntimeCore } from "./runtime-core.js";
import type { ModelUsage } from "./telemetry.js";
import { continueTranscriptCheck, findTranscriptError, unansweredCalls, withTurnBreaks } from "./transcript.js";
import { TranscriptCache } from "./transcript-cache.js";
import type { TurnWriter } from "./turn-writer.js";
import { uniqueToolCallIds } from "./unique-tool-call-ids.js";

/** What a model step reads of its driver: whether the runtime is closing. */
export interface DriverClosing {
  /** The runtime is closing: a model step waits no more for the store, nor tries a failed model call again. */
  stopped(): boolean;
  /** The runtime closed before its turns ended, and left them. */
  left(): boolean;
  /** Aborted when the runtime closes: a model call's retry waits no longer, and the turn is left to the next start. */
  readonly signal: AbortSignal;
}

/**
 * A turn's model step: checks the stored transcript, calls the model (trying a call that
 * failed before it streamed anything again), writes what it streams as it streams, waiting
 * out a store that cannot be reached, then writes the step: its message, its calls planned,
 * and whether the turn goes on, parks or ends.
 */
export class ModelTurnStep {
  readonly #transcripts = new TranscriptCache();

  constructor(
    private readonly core: RuntimeCore,
    private readonly writer: TurnWriter,
    private readonly closing: DriverClosing,
  ) {}

  /** Forgets the session's transcript, kept between steps and turns. */
  forget(sessionId: string): void {
    this.#transcripts.forget(sessionId);
  }

  /** Fails the turn before its model call, which would be sent a transcript it must not be. */
  async #refuse(session: SessionRecord, message: string): Promise<"stop"> {
    const { sessionId, turnId } = session;
    const error = { code: "transcript_invalid", message };
    await this.writer.commit(sessionId, {
      events: [{ type: "turn.failed", turnId: turnId!, error }],
      session: { status: "idle" },
    });
    this.core.logger.error(`hitl-kit: ${logScope(sessionId, turnId)}: ${message}`);
    return "stop";
  }

  /** Calls the model for the session's next step and writes what it did; answers whether the turn goes on. */
  async run(session: SessionRecord, signal: AbortSignal): Promise<"again" | "stop"> {
    const { core } = this;
    const { sessionId } = session;
    const { messages: transcript, check } = await this.#transcripts.get(sessionId, session.transcriptLength, (from) =>
      core.store.readTranscript(sessionId, from),
    );
    const invalid = continueTranscriptCheck(transcript, check) ?? unansweredCalls(check);
    if (invalid) {
      this.#transcripts.forget(sessionId);
      return this.#refuse(session, `Refused to call the model: ${invalid}`);
    }
    const { system, prepareTranscript } = core.options;
    const sent = prepareTranscript
      ? await prepareTranscript(transcript, { sessionId, turnId: session.turnId!, step: session.step + 1 })
      : transcript;
    const shapedWrong = sent === transcript ? undefined : findTranscriptError(sent);
    if (shapedWrong) {
      return this.#refuse(session, `Refused to call the model with what prepareTranscript returned: ${shapedWrong}`);
    }
    const prompt: LanguageModelV4Message[] = [
      ...(system ? [{ role: "system" as const, content: system }] : []),
      ...withTurnBreaks(sent),
    ];
    // Streamed text reaches the store in batches (a few ms apart), not a transaction per token;
    // what waits when the model is done is written with the step. A store that cannot be
    // reached is waited out, the reply kept here meanwhile, rather than asked of the model again.
    const written = { lastSeq: session.lastSeq };
    const lost = abortedOnlyFor(signal, (reason) => reason instanceof LeaseLost);
    const coalescer = eventCoalescer((events) => this.#writeStreamed(sessionId, events, written, signal, lost));
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
        if (this.closing.stopped()) throw new LeftForRecovery(sessionId, error);
        core.logger.warn(
          `hitl-kit: ${logScope(sessionId, session.turnId)}: the model call failed; trying again in ${wait} ms (retry ${attempt + 1} of ${modelRetries}): ${errorSummary(error)}`,
        );
        await delay(wait, signal, this.closing.signal).catch((reason: unknown) => {
          throw this.closing.signal.aborted && !signal.aborted ? new LeftForRecovery(sessionId, error) : reason;
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
            this.writer.dropBefore(sessionId);
            core.hub.publish(sessionId, await core.store.readEvents(sessionId, written.lastSeq));
            return now.status === "running" || now.status === "resuming" ? "again" : "stop";
          }
        }
        return await this.#writeStep(sessionId, current, output, streamedEvents, signal);
      } catch (error) {
        await this.#waitForStore(sessionId, error, tries, signal, lost);
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
    return this.writer.section(sessionId, async () => {
      // Stopped once the stream was read (also while the step waited for this section, which
      // the cancel held): what it streamed is written, unless the turn is no longer this
      // instance's, and the drive ends the turn, not parked or run on. The step's calls are
      // dropped, as a stream cut short is: the model never sees them.
      if (signal.aborted) {
        if (!(signal.reason instanceof LeaseLost)) await this.writer.commit(sessionId, { events: streamedEvents });
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
      await this.writer.commit(sessionId, {
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

  /**
   * A model step's wait for a store that could not be reached (`error`), before it tries its
   * write again: it rethrows what cannot be waited out (another failure, a store that cannot
   * serve until fixed, a closing runtime), and ends when `lost` aborts (the turn is no longer
   * this instance's). A Stop (`signal` aborting otherwise) cuts the wait short once, so the
   * step tries again at once and the stop is written as soon as the store takes it; a
   * stopped turn's later waits back off as before, rather than trying without pause.
   */
  async #waitForStore(
    sessionId: string,
    error: unknown,
    tries: number,
    signal: AbortSignal,
    lost: AbortSignal,
  ): Promise<void> {
    if (!isPassingOutage(error) || this.closing.stopped()) {
      if (error instanceof LeaseLost && tries > 0) this.#logTakenOver(sessionId);
      throw error;
    }
    this.core.trouble("turns wait for the store to come back", error);
    const stop = signal.aborted ? [] : [signal];
    await delay(outageDelay(tries), lost, this.closing.signal, ...stop).catch(() => {
      if (lost.aborted) {
        if (lost.reason instanceof LeaseLost && !this.closing.left()) this.#logTakenOver(sessionId);
        throw lost.reason;
      }
      if (this.closing.signal.aborted) throw error;
      // Stopped: the next try writes what the step has, and the drive then ends the turn.
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
    signal: AbortSignal,
    lost: AbortSignal,
  ): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        if (tries > 0) {
          await this.#stillHolds(sessionId);
          const found = findWritten(await this.core.store.readEvents(sessionId, written.lastSeq), events);
          if (found) {
            this.writer.dropBefore(sessionId); // they went with the first write
            this.core.hub.publish(sessionId, found);
            written.lastSeq = found.at(-1)?.seq ?? written.lastSeq;
            return;
          }
        }
        written.lastSeq = (await this.writer.commit(sessionId, { events })).at(-1)?.seq ?? written.lastSeq;
        return;
      } catch (error) {
        await this.#waitForStore(sessionId, error, tries, signal, lost);
      }
    }
  }
}

/** How long the model may send nothing before its call is stopped, by default (`modelStallMs`). */
const DEFAULT_MODEL_STALL_MS = 120_000;

/** The runtime closed while a model call waited to be tried again: the turn is left as it is, for the next start. */
export class LeftForRecovery extends Error {
  constructor(sessionId: string, cause: unknown) {
    super(
      `hitl-kit: session ${sessionId}: the runtime closed before a failed model call was tried again; the turn goes on at the next start.`,
      { cause },
    );
    this.name = "LeftForRecovery";
  }
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

/**
 * What a failed turn says (`turn.failed`, read by the person): the code, with the provider's
 * HTTP status, and words for the person where the provider's are not for them (a refused key,
 * whose message may quote part of it; an overload). The provider's own words are in the log.
 */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ModelStalled) return { code: error.code, message: error.message };
  const status = (error as { statusCode?: number }).statusCode;
  // The reply had begun (the status of its start was a success) and its connection broke.
  if (status !== undefined && status >= 200 && status < 300) {
    return { code: "model_interrupted", message: "The connection to the model broke off in the middle of its reply." };
  }
  const said = status === undefined ? saidByName[(error as { name?: string }).name ?? ""] : saidByStatus(status);
  return { code: status ? `model_${status}` : "model_error", message: said ?? failureText(error) };
}

function saidByStatus(status: number): string | undefined {
  if (status === 401 || status === 403) return "The model provider refused this server's credentials (its API key).";
  if (status === 429) return "The model provider is limiting this server's requests right now; try again in a minute.";
  if (status >= 500) return "The model provider is overloaded or unavailable right now; try again in a moment.";
  // A 400 says what was wrong with the request (a transcript too long for the model, say).
  return undefined;
}

const saidByName: Record<string, string> = {
  AI_LoadAPIKeyError: "The server has no API key for its model provider.",
  AI_JSONParseError: "The model provider sent a reply that could not be read.",
  AI_TypeValidationError: "The model provider sent a reply that could not be read.",
};

export function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
