import type { ResolutionAction } from "@hitl-kit/protocol";
import type { StoreUnavailable } from "../store/store-unavailable.js";

/**
 * What a turn, a model call or a tool ended with when it failed: a short, low-cardinality
 * `code` (OpenTelemetry's `error.type`) and a one-line `message` that carries no request,
 * response or credential (the same summary the runtime logs).
 */
export interface TelemetryError {
  /** `model_429`, `model_stalled`, `model_error` for a model call; the error's name (`TypeError`) for a tool; the `turn.failed` code for a turn. */
  code: string;
  /** One line: the error and its causes. */
  message: string;
}

/**
 * Why a run of a turn started in this process: `message`, a person's message started the
 * turn; `responses`, the last answers it waited for resumed it; `resumed`, this process
 * picked up a turn left running — after a restart, from an instance that died, or once the
 * store was back after an outage.
 */
export type TurnStartCause = "message" | "responses" | "resumed";

/** A run of a turn starts in this process (see {@link RuntimeTelemetry.onTurnStart}). */
export interface TurnStartEvent {
  /** The session (`ses_…`): OpenTelemetry's `gen_ai.conversation.id`. */
  sessionId: string;
  /** The turn (`turn_…`); a turn that parks and resumes runs again under the same id. */
  turnId: string;
  /** Why it runs: see {@link TurnStartCause}. */
  cause: TurnStartCause;
}

/**
 * A run of a turn ends: `completed` (the model answered without tool calls), `waiting` (it
 * parked on requests: a later run with cause `responses` goes on), `failed` (with the
 * `turn.failed` error), `cancelled` (a Stop, a new message while parked, a deletion), or
 * `interrupted` (this process stopped driving it: it closed, another instance took the turn
 * over, or the store could not be reached; the turn goes on in a run with cause `resumed`).
 */
export type TurnFinishEvent = TurnStartEvent & {
  /** Milliseconds from the run's start (its `turn.started` write, when written here) to its end. */
  durationMs: number;
} & (
    | { outcome: "completed" | "waiting" | "cancelled" | "interrupted"; error?: never }
    | { outcome: "failed"; error: TelemetryError }
  );

/** One try of a model call (see {@link RuntimeTelemetry.onModelCallStart}). */
export interface ModelCallStartEvent {
  /** The session (`ses_…`). */
  sessionId: string;
  /** The turn (`turn_…`). */
  turnId: string;
  /** This try's id (`mcall_…`), the same in its finish event. */
  modelCallId: string;
  /** Which model call of the turn, from 1; its retries have the same step. */
  step: number;
  /** 0 for the first try, 1 for the first retry, and so on. */
  attempt: number;
  /** The model's provider as the AI SDK names it (`anthropic.messages`, `openai.responses`). */
  provider: string;
  /** The model asked for (`gen_ai.request.model`). */
  modelId: string;
}

/** Token counts a model reported for one call (the AI SDK's `LanguageModelUsage` names); a count it did not report is absent. */
export interface ModelUsage {
  /** Input (prompt) tokens. */
  inputTokens?: number;
  /** Output tokens, reasoning included. */
  outputTokens?: number;
  /** Output tokens spent reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  /** Input tokens read from the provider's cache (part of `inputTokens`). */
  cachedInputTokens?: number;
}

/** Why a model stopped, unified across providers as the AI SDK does. */
export type ModelFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other";

/**
 * A try of a model call ends: `ok` with what the model reported of it, `error` (with
 * `retryInMs` when it is tried again after that wait), or `aborted` (the turn was stopped,
 * or this process stopped driving it).
 */
export type ModelCallFinishEvent = ModelCallStartEvent & {
  /** Milliseconds from the call to the end of its stream (or its failure). */
  durationMs: number;
} & (
    | {
        outcome: "ok";
        /** Why the model stopped, when it said. */
        finishReason?: ModelFinishReason;
        /** What the model reported using, when it did. */
        usage?: ModelUsage;
        /** The provider's id of the response (`gen_ai.response.id`), when it sent one. */
        responseId?: string;
        /** The model that answered (`gen_ai.response.model`), when the provider named it. */
        responseModelId?: string;
        error?: never;
        retryInMs?: never;
      }
    | {
        outcome: "error";
        error: TelemetryError;
        /** The call is tried again after this many milliseconds; absent when the failure fails the turn. */
        retryInMs?: number;
      }
    | { outcome: "aborted"; error?: never; retryInMs?: never }
  );

/** A server tool's executor (or a client tool's `resolve`) starts (see {@link RuntimeTelemetry.onToolCallStart}). */
export interface ToolCallStartEvent {
  /** The session (`ses_…`). */
  sessionId: string;
  /** The turn (`turn_…`). */
  turnId: string;
  /** The call's id (`gen_ai.tool.call.id`). */
  toolCallId: string;
  /** The tool (`gen_ai.tool.name`). */
  toolName: string;
  /** The model call of the turn that made the call, from 1. */
  step: number;
}

/**
 * The tool's work ends: `ok`, or `error` when it threw (also when a Stop aborted it). Its
 * duration includes the wait for a question it asked (`ctx.ask`).
 */
export type ToolCallFinishEvent = ToolCallStartEvent & {
  /** Milliseconds from its start. */
  durationMs: number;
} & ({ outcome: "ok"; error?: never } | { outcome: "error"; error: TelemetryError });

/** A request parked for a person (see {@link RuntimeTelemetry.onRequestParked}). */
export interface RequestParkedEvent {
  /** The session (`ses_…`). */
  sessionId: string;
  /** The turn (`turn_…`). */
  turnId: string;
  /** The request (`req_…`), as `input.requested` named it. */
  requestId: string;
  /** The parked tool call. */
  toolCallId: string;
  /** The tool the call is to. */
  toolName: string;
  /** `approval` for a server tool waiting for a yes, `input` for a client tool or a question. */
  kind: "approval" | "input";
  /** Asked by a running tool (`ctx.ask`), which waits for it, rather than parked by the turn. */
  asked: boolean;
}

/** A parked request is settled once (see {@link RuntimeTelemetry.onRequestSettled}). */
export interface RequestSettledEvent extends RequestParkedEvent {
  /** `accept`, `decline` or `cancel` (a person, a Stop, a new message, a deletion), or `expire`. */
  action: ResolutionAction;
  /**
   * Milliseconds from parking to settlement: how long the person took. Absent for a request
   * parked by a version of the runtime that did not record when.
   */
  waitedMs?: number;
}

/** A call to the store failed because it could not be reached or cannot write (see {@link RuntimeTelemetry.onStoreUnavailable}). */
export interface StoreUnavailableEvent {
  /** The store's method: `write`, `getSession`, `readEvents`, … */
  operation: string;
  /** The failure: `lasting` when trying again cannot help. */
  error: StoreUnavailable;
}

/** An event stream opened or closed (see {@link RuntimeTelemetry.onEventStreamsChange}). */
export interface EventStreamsEvent {
  /** The session the stream follows. */
  sessionId: string;
  /** Whether this stream opened or closed. */
  change: "opened" | "closed";
  /** How many streams are open in this process now, over every session. */
  open: number;
}

/**
 * Hooks the runtime calls as turns run (the `telemetry` option of `createAgentRuntime`), for
 * metrics and traces; every one is optional. They are shaped for a tracer and a metrics
 * library: each `…Start` has a `…Finish` with the same ids, so a span-based tracer builds a
 * turn span (`invoke_agent`) with model-call (`chat`) and tool (`execute_tool`) spans as its
 * children; each finish carries its `durationMs` for a histogram. The runtime calls a hook
 * synchronously and never awaits it: one that throws or rejects is logged (once per hook) and
 * the turn goes on; keep hooks quick, as a slow one holds the process as any code does.
 *
 * A turn runs in one or more runs: it parks (`waiting`) and runs again once answered. The
 * `…Start` and `…Finish` of a run, a model call or a tool come from one process; a request
 * may be parked by one instance and settled by another.
 * @example
 * const runtime = createAgentRuntime({
 *   model,
 *   store,
 *   telemetry: {
 *     onTurnFinish: ({ outcome, durationMs }) => turnSeconds.observe({ outcome }, durationMs / 1000),
 *     onRequestSettled: ({ action, waitedMs }) => waitSeconds.observe({ action }, (waitedMs ?? 0) / 1000),
 *   },
 * });
 */
export interface RuntimeTelemetry {
  /** A run of a turn starts: a message, the answers it waited for, or a pick-up after a restart. */
  onTurnStart?: (event: TurnStartEvent) => void;
  /** The run ends: completed, waiting (parked), failed, cancelled or interrupted. */
  onTurnFinish?: (event: TurnFinishEvent) => void;
  /** A try of a model call starts; each retry is a try of its own. */
  onModelCallStart?: (event: ModelCallStartEvent) => void;
  /** The try ends: its finish reason and token usage, or its error and whether it is tried again. */
  onModelCallFinish?: (event: ModelCallFinishEvent) => void;
  /** A server tool (or a client tool's `resolve`) starts its work. */
  onToolCallStart?: (event: ToolCallStartEvent) => void;
  /** The tool's work ends. */
  onToolCallFinish?: (event: ToolCallFinishEvent) => void;
  /**
   * Runs a tool's work, between its start and its finish: call `run` once, synchronously,
   * inside a context of your own, so that what the tool traces itself (its HTTP calls, its
   * own spans) nests under the tool's span. With OpenTelemetry:
   * `context.with(trace.setSpan(context.active(), span), run)`. The call gets the tool's own
   * result whatever this returns; a hook that throws, or returns without calling `run`, is
   * logged once and the tool runs anyway, once.
   */
  runToolCall?: (event: ToolCallStartEvent, run: () => Promise<unknown>) => unknown;
  /** A request is parked for a person. */
  onRequestParked?: (event: RequestParkedEvent) => void;
  /** A request is settled: answered, declined, cancelled or expired, and how long it waited. */
  onRequestSettled?: (event: RequestSettledEvent) => void;
  /** A store call failed with `StoreUnavailable` (each failed call once). */
  onStoreUnavailable?: (event: StoreUnavailableEvent) => void;
  /** An event stream (`GET …/events`, or any `runtime.subscribe`) opened or closed. */
  onEventStreamsChange?: (event: EventStreamsEvent) => void;
}
