import type { RequestRecord, SessionStore, WriteBatch } from "../store/records.js";
import { STORE_CALLS } from "../store/report-store-errors.js";
import { StoreUnavailable } from "../store/store-unavailable.js";
import { randomId } from "./ids.js";
import { failureLine } from "./logged-error.js";
import type {
  ModelCallFinishEvent,
  ModelCallStartEvent,
  RuntimeTelemetry,
  TelemetryError,
  ToolCallFinishEvent,
  ToolCallStartEvent,
  TurnFinishEvent,
  TurnStartCause,
} from "./telemetry.js";

type HookEvent<K extends keyof RuntimeTelemetry> = Parameters<NonNullable<RuntimeTelemetry[K]>>[0];

/** What a model call's finish adds to its start. */
export type ModelCallEnd = DistributiveOmit<ModelCallFinishEvent, keyof ModelCallStartEvent | "durationMs">;
/** What a tool's finish adds to its start. */
export type ToolCallEnd = DistributiveOmit<ToolCallFinishEvent, keyof ToolCallStartEvent | "durationMs">;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Compiles only when `T` is `never`. */
type Never<T extends never> = T;
/** `observedStore` wraps every method of a store: one added to `SessionStore` must be added to `STORE_CALLS`. */
export type UnwrappedStoreMethods = Never<
  Exclude<keyof SessionStore, (typeof STORE_CALLS)[number] | "coordinate" | "close">
>;

const ignore = () => {};

/**
 * Calls the runtime's `telemetry` hooks: synchronously, never awaited, a failure logged once
 * per hook. It keeps which run of a turn is open in this process, per session, so each run's
 * finish pairs with its start.
 */
export class TelemetryReporter {
  readonly #hooks: RuntimeTelemetry | undefined;
  readonly #logger: Pick<Console, "error">;
  /** Hooks that failed once already: not logged again. */
  readonly #failed = new Set<string>();
  /** The open run of each session's turn in this process. */
  readonly #runs = new Map<string, { turnId: string; cause: TurnStartCause; startedAt: number }>();
  /** Turns whose `turn.started` was written here and not driven yet, by session. */
  readonly #starts = new Map<string, { turnId: string; cause: TurnStartCause; at: number }>();
  #streams = 0;

  constructor(hooks: RuntimeTelemetry | undefined, logger: Pick<Console, "error">) {
    this.#hooks = hooks;
    this.#logger = logger;
  }

  #notify<K extends keyof RuntimeTelemetry>(kind: K, event: HookEvent<K>): void {
    const hook = this.#hooks?.[kind] as ((event: HookEvent<K>) => unknown) | undefined;
    if (!hook) return;
    try {
      const returned = hook.call(this.#hooks, event);
      // Never awaited: a rejection is only logged.
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === "function") {
        (returned as PromiseLike<unknown>).then(undefined, (error: unknown) => this.#hookFailed(kind, error));
      }
    } catch (error) {
      this.#hookFailed(kind, error);
    }
  }

  #hookFailed(kind: string, error: unknown): void {
    if (this.#failed.has(kind)) return;
    this.#failed.add(kind);
    this.#logger.error(
      ...failureLine(`hitl-kit: the telemetry hook ${kind} failed (logged once; turns go on without it)`, error),
    );
  }

  /** Reports what a write that applied did: turns that started or ended, requests parked or settled. */
  committed(sessionId: string, batch: WriteBatch): void {
    if (!this.#hooks) return;
    // Requests first: a run that parks ends after its requests are parked.
    for (const record of batch.requests ?? []) this.#requestWritten(sessionId, record);
    for (const event of batch.events ?? []) {
      if (event.type === "turn.started") {
        this.#starts.set(sessionId, { turnId: event.turnId, cause: event.cause, at: performance.now() });
      } else if (event.type === "turn.failed") {
        this.#finishRun(sessionId, event.turnId, { outcome: "failed", error: event.error });
      } else if (event.type === "turn.waiting" || event.type === "turn.completed" || event.type === "turn.cancelled") {
        const outcome = event.type === "turn.waiting" ? "waiting" : event.type.slice("turn.".length);
        this.#finishRun(sessionId, event.turnId, { outcome: outcome as "waiting" | "completed" | "cancelled" });
      }
    }
  }

  #requestWritten(sessionId: string, record: RequestRecord): void {
    const { requestId, toolCallId, turnId, request, resolution, parkedAt } = record;
    const parked = {
      sessionId,
      turnId,
      requestId,
      toolCallId,
      toolName: request.toolName,
      kind: request.kind,
      asked: record.asked === true,
    };
    if (record.state === "open") {
      this.#notify("onRequestParked", parked);
      return;
    }
    if (!resolution) return;
    const waitedMs = parkedAt === undefined ? undefined : Math.max(0, Date.parse(resolution.at) - parkedAt);
    this.#notify("onRequestSettled", {
      ...parked,
      action: resolution.action,
      ...(waitedMs === undefined || Number.isNaN(waitedMs) ? {} : { waitedMs }),
    });
  }

  /**
   * The driver is about to move a running turn on: a run starts unless one of this turn is
   * open already. Its cause is the `turn.started` written here, else `resumed`.
   */
  driving(sessionId: string, turnId: string): void {
    if (!this.#hooks || this.#runs.get(sessionId)?.turnId === turnId) return;
    const open = this.#runs.get(sessionId);
    if (open) this.#finishRun(sessionId, open.turnId, { outcome: "interrupted" });
    const written = this.#starts.get(sessionId);
    const start = written?.turnId === turnId ? written : undefined;
    this.#starts.delete(sessionId);
    const cause = start?.cause ?? "resumed";
    this.#runs.set(sessionId, { turnId, cause, startedAt: start?.at ?? performance.now() });
    this.#notify("onTurnStart", { sessionId, turnId, cause });
  }

  /** The driver stopped driving the session: a run it left open was interrupted (the turn goes on elsewhere or later). */
  driveEnded(sessionId: string): void {
    const open = this.#runs.get(sessionId);
    if (open) this.#finishRun(sessionId, open.turnId, { outcome: "interrupted" });
  }

  /** Forgets a deleted session. */
  forget(sessionId: string): void {
    this.#starts.delete(sessionId);
  }

  #finishRun(
    sessionId: string,
    turnId: string,
    end:
      | { outcome: "completed" | "waiting" | "cancelled" | "interrupted" }
      | { outcome: "failed"; error: TelemetryError },
  ): void {
    if (this.#starts.get(sessionId)?.turnId === turnId) this.#starts.delete(sessionId);
    const run = this.#runs.get(sessionId);
    if (run?.turnId !== turnId) return;
    this.#runs.delete(sessionId);
    const durationMs = performance.now() - run.startedAt;
    this.#notify("onTurnFinish", { sessionId, turnId, cause: run.cause, durationMs, ...end } as TurnFinishEvent);
  }

  /** Reports a try of a model call starting; answers what reports its end. */
  modelCall(start: Omit<ModelCallStartEvent, "modelCallId">): (end: ModelCallEnd) => void {
    if (!this.#hooks) return ignore;
    return this.#timed("onModelCallStart", "onModelCallFinish", { ...start, modelCallId: randomId("mcall") });
  }

  /** Reports a tool's work starting; answers what reports its end. */
  toolCall(start: ToolCallStartEvent): (end: ToolCallEnd) => void {
    return this.#timed("onToolCallStart", "onToolCallFinish", start);
  }

  /** Runs a tool's work through the `runToolCall` hook, when there is one: once, whatever the hook does. */
  runToolCall<T>(start: ToolCallStartEvent, work: () => Promise<T>): Promise<T> {
    const hook = this.#hooks?.runToolCall;
    if (!hook) return work();
    let running: Promise<T> | undefined;
    const run = () => {
      running ??= work();
      return running;
    };
    try {
      const returned = hook.call(this.#hooks, start, run);
      // The tool's own failure is the call's, not the hook's: only another promise's is logged.
      if (returned !== running && typeof (returned as PromiseLike<unknown> | undefined)?.then === "function") {
        (returned as PromiseLike<unknown>).then(undefined, (error: unknown) => this.#hookFailed("runToolCall", error));
      }
    } catch (error) {
      this.#hookFailed("runToolCall", error);
    }
    if (!running)
      this.#hookFailed("runToolCall", new Error("It returned without calling run(); the tool ran outside it."));
    return run();
  }

  /** Reports `start` to one hook; answers what reports its end, with its duration, to the other. */
  #timed<S extends "onModelCallStart" | "onToolCallStart", F extends "onModelCallFinish" | "onToolCallFinish">(
    startKind: S,
    finishKind: F,
    start: HookEvent<S>,
  ): (end: object) => void {
    if (!this.#hooks) return ignore;
    const startedAt = performance.now();
    this.#notify(startKind, start);
    return (end) =>
      this.#notify(finishKind, { ...start, durationMs: performance.now() - startedAt, ...end } as HookEvent<F>);
  }

  /** Reports an event stream opening; answers what reports it closing (once, however often called). */
  streamOpened(sessionId: string): () => void {
    this.#streams++;
    this.#notify("onEventStreamsChange", { sessionId, change: "opened", open: this.#streams });
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#streams--;
      this.#notify("onEventStreamsChange", { sessionId, change: "closed", open: this.#streams });
    };
  }

  /**
   * The store as the runtime calls it: with an `onStoreUnavailable` hook, each call that
   * fails with {@link StoreUnavailable} is reported; without one, the store itself.
   */
  observedStore(store: SessionStore): SessionStore {
    if (!this.#hooks?.onStoreUnavailable) return store;
    const observed: Record<string, unknown> = {
      coordinate: store.coordinate?.bind(store),
      close: () => store.close(),
    };
    for (const operation of STORE_CALLS) {
      const method = store[operation] as (...args: unknown[]) => Promise<unknown>;
      observed[operation] = async (...args: unknown[]) => {
        try {
          return await method.apply(store, args);
        } catch (error) {
          if (error instanceof StoreUnavailable) this.#notify("onStoreUnavailable", { operation, error });
          throw error;
        }
      };
    }
    return observed as unknown as SessionStore;
  }
}
