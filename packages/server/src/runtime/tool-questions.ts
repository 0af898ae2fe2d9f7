import { createHash } from "node:crypto";
import { type InputRequest, type InputResponse, type SchemaLike, toJsonSchema, validate } from "@hitl-kit/protocol";
import { issueSummary } from "@hitl-kit/protocol/internal";
import type { RequestRecord, Resolution, ToolCallRecord } from "../store/records.js";
import { LeaseLost } from "./coordination.js";
import { randomId } from "./ids.js";
import type { AskOptions, AskResult } from "./implement.js";
import { failureLine, logScope } from "./logged-error.js";
import type { PersonWaits } from "./person-waits.js";
import { expiryAfter } from "./plan-step.js";
import type { RuntimeCore } from "./runtime-core.js";
import { schemaHash } from "./schema-hash.js";
import { questionChanged } from "./stop-reasons.js";
import { outOfTimeReason, ToolTimedOut } from "./tool-timeout.js";
import type { TurnWriter } from "./turn-writer.js";

/**
 * The questions running tools ask the person (`ctx.ask`): parks each as a request of the
 * tool's call, hands the tool its settlement, and settles those its call ends without.
 */
export class ToolQuestions {
  /** Calls that asked a question in this process (`ctx.ask`), until they finish. */
  readonly #asked = new Set<string>();

  constructor(
    private readonly core: RuntimeCore,
    private readonly writer: TurnWriter,
    private readonly waits: PersonWaits,
  ) {}

  /** Whether the call asked a question in this process that it has not finished with. */
  asked(toolCallId: string): boolean {
    return this.#asked.has(toolCallId);
  }

  /** The call finished (its result is written, or dropped): its questions are its no more. */
  forgetAsked(toolCallId: string): void {
    this.#asked.delete(toolCallId);
  }

  /** What settles as cancelled the open questions (`ctx.ask`) of the given calls: the requests and events to write. */
  async cancelBatch(sessionId: string, toolCallIds: string[], reason: string) {
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
   * {@link RuntimeCore.commit} hands over once written. A stopped turn (or a call out of
   * time) answers the tool at once as cancelled, saying why, so the tool's own branch for an
   * unanswered question runs; the request is settled so when the call's result is written.
   */
  async ask(
    sessionId: string,
    call: ToolCallRecord,
    question: AskOptions,
    signal: AbortSignal,
    /** Which of the call's questions this is in its run, from 0: a rerun's question takes the place of the earlier run's. */
    index: number,
  ): Promise<AskResult<unknown>> {
    if (signal.aborted) return whenAborted(signal);
    const { core } = this;
    const answerSchema = toJsonSchema(question.schema);
    const hash = schemaHash(answerSchema);
    const after = question.expireAfter ?? expiryAfter(core.options.expireAfter, call);
    const expiresAt = after === undefined ? undefined : Date.now() + after;
    const rerun = call.questionSeed !== undefined && (call.runs ?? 1) > 1;
    const { requestId, earlier } = rerun
      ? await this.#placeInRerun(sessionId, call, index, question.schema, hash)
      : { requestId: call.questionSeed === undefined ? randomId("req") : questionId(call.questionSeed, index) };
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
    // Counted as waiting for the person from when the question is written until it settles,
    // and not while the tool's own word (a withdrawal, an answer from elsewhere) settles it.
    const waiting = { counted: false, settled: false };
    const count = (on: boolean) => {
      if (waiting.settled || waiting.counted === on) return;
      waiting.counted = on;
      this.waits.asking(sessionId, on ? 1 : -1, call.questionSeed !== undefined);
    };
    const settling = async (settle: Promise<void>) => {
      count(false);
      await settle;
      count(true); // it stayed open (an answer from elsewhere that does not fit)
    };
    let deliver: (resolution: Omit<Resolution, "at">) => void = () => {};
    let fail: (error: unknown) => void = () => {};
    const answered = new Promise<AskResult<unknown>>((resolve, reject) => {
      core.asks.set(requestId, { schema: question.schema });
      let check: ReturnType<typeof setInterval> | undefined;
      const settle = (outcome: () => void) => {
        if (waiting.settled) return;
        count(false);
        waiting.settled = true;
        core.asks.delete(requestId);
        unsubscribe();
        clearInterval(check);
        signal.removeEventListener("abort", stop);
        outcome();
      };
      const stop = () => settle(() => whenAborted(signal).then(resolve, reject));
      fail = (error) => settle(() => reject(error));
      // Whatever settles it (an answer on any instance, expiry, a stopped turn), its
      // `input.resolved` reaches this instance's hub once written.
      deliver = (resolution) => settle(() => resolve(askResult(resolution, question.schema, requestId)));
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
    // An answer the tool's schema refuses rejects the wait, maybe before anyone awaits it.
    answered.catch(() => {});
    // A run after a restart asks in the earlier run's place: the question it finds there was
    // answered (the answer is handed over again), or is still open (it waits on).
    try {
      if (earlier?.resolution) deliver(earlier.resolution);
      else if (!earlier) {
        await this.writer.section(sessionId, () =>
          this.writer.commit(sessionId, {
            requests: [
              {
                requestId,
                toolCallId: call.toolCallId,
                turnId: call.turnId,
                request,
                schemaHash: hash,
                state: "open",
                asked: true,
                parkedAt: Date.now(),
                ...(expiresAt === undefined ? {} : { expiresAt }),
              },
            ],
            events: [{ type: "input.requested", requests: [request] }],
          }),
        );
      }
    } catch (error) {
      fail(error);
      return answered;
    }
    count(true);
    // The asker's signal and promise may outlive the question (one shutdown signal for every
    // question, a webhook's promise that never comes): they let go of it once it settles.
    const { signal: withdrawal, answeredElsewhere } = question;
    const withdraw = () =>
      settling(
        this.#settleAsked(sessionId, call, requestId, {
          requestId,
          action: "cancel",
          reason: withdrawnReason(withdrawal?.reason),
        }),
      );
    if (withdrawal?.aborted) await withdraw();
    else withdrawal?.addEventListener("abort", withdraw, { once: true });
    const stopWaiting = whileWanted(answeredElsewhere, ({ value, reason }) =>
      settling(
        this.#settleAsked(sessionId, call, requestId, {
          requestId,
          action: "accept",
          value,
          ...(reason === undefined ? {} : { reason }),
        }),
      ),
    );
    const letGo = () => {
      withdrawal?.removeEventListener("abort", withdraw);
      stopWaiting();
    };
    answered.then(letGo, letGo);
    return answered;
  }

  /**
   * Where a rerun's question `index` goes: in the earlier run's question of that place, whose
   * answer is handed over again, or which is waited on while open. When the question changed
   * since (a deploy between the runs), an answer that fits the new schema is kept; otherwise
   * the question is asked again under an id of its own, and the earlier one, if still open,
   * is cancelled saying so.
   */
  async #placeInRerun(
    sessionId: string,
    call: ToolCallRecord,
    index: number,
    schema: SchemaLike,
    hash: string,
  ): Promise<{ requestId: string; earlier?: RequestRecord }> {
    const seed = call.questionSeed!;
    const requestId = questionId(seed, index);
    const earlier = await this.core.store.getRequest(sessionId, requestId);
    const given = earlier?.resolution;
    if (!earlier) return { requestId };
    if (given ? given.action !== "accept" || (await validate(schema, given.value)).ok : earlier.schemaHash === hash) {
      return { requestId, earlier };
    }
    if (!given) {
      await this.#settleAsked(sessionId, call, requestId, { requestId, action: "cancel", reason: questionChanged });
    }
    const again = questionId(seed, `${index}:${hash}`);
    const askedAgain = await this.core.store.getRequest(sessionId, again);
    return { requestId: again, ...(askedAgain ? { earlier: askedAgain } : {}) };
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
        await this.writer.commit(sessionId, {
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
}

/**
 * What a question gets when the call's signal aborts: a cancel saying why; a throw when this
 * instance leaves the turn (it closes, or another took the turn over), for the question
 * is not the person's to lose: it stays open, and the turn's next driver settles it (the
 * call's next run asks it again, or it is cancelled with the call's error result).
 */
function whenAborted(signal: AbortSignal): Promise<AskResult<unknown>> {
  if (signal.reason instanceof LeaseLost) return Promise.reject(signal.reason);
  return Promise.resolve({ action: "cancel", reason: withdrawnReason(signal.reason) });
}

/** The id of a rerunnable call's question: the same for its place in every run (`index`), and not to be guessed without the call's seed. */
function questionId(seed: string, index: number | string): string {
  return `req_${createHash("sha256").update(`${seed}:${index}`).digest("base64url").slice(0, 22)}`;
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

/**
 * The reason a withdrawn question gives: the abort reason's message, or a default. A tool
 * that passed its own `ctx.signal` and ran out of time says so, as its unanswered question does.
 */
function withdrawnReason(reason: unknown): string {
  if (reason instanceof ToolTimedOut) return outOfTimeReason(reason.timeoutMs);
  if (reason instanceof Error) return reason.message;
  return typeof reason === "string" ? reason : "The question was withdrawn.";
}
