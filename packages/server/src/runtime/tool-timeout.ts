import { MAX_TIMER_MS } from "./model-step.js";

/** A tool call ran past its time limit (`toolTimeoutMs`, or the tool's own `timeoutMs`): the reason its `ctx.signal` aborts with. */
export class ToolTimedOut extends Error {
  /** Always `"tool_timeout"`, so a check need not import the class. */
  readonly code = "tool_timeout";
  /**
   * @param timeoutMs - the limit the call ran past, in milliseconds
   */
  constructor(
    /** The limit the call ran past, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(`The tool timed out after ${timeoutMs} ms and was given up; it may or may not have completed.`);
    this.name = "ToolTimedOut";
  }
}

/**
 * The reason a question the tool waited on (`ctx.ask`) is cancelled with when the tool's time
 * limit runs out, so the person sees why it closed: "The tool ran out of time (30 s) before
 * the answer came."
 */
export function outOfTimeReason(timeoutMs: number): string {
  const limit = timeoutMs % 1_000 === 0 ? `${timeoutMs / 1_000} s` : `${timeoutMs} ms`;
  return `The tool ran out of time (${limit}) before the answer came.`;
}

/** Whether `reason` is one `outOfTimeReason` wrote. */
export function isOutOfTimeReason(reason: string): boolean {
  return /^The tool ran out of time \(\d+ m?s\) before the answer came\.$/.test(reason);
}

/**
 * Checks a tool time limit (`toolTimeoutMs`, a tool's `timeoutMs`).
 * @throws {RangeError} naming `what`, for a limit that is not more than 0 milliseconds
 */
export function assertTimeout(timeoutMs: number | undefined, what: string): void {
  if (timeoutMs !== undefined && !(timeoutMs > 0)) {
    throw new RangeError(`${what} must be more than 0 milliseconds (Infinity: no limit), not ${timeoutMs}.`);
  }
}

/**
 * Runs a tool with a signal that aborts when the turn's does, or once `timeoutMs` pass: then
 * it rejects at once with a {@link ToolTimedOut}, whether or not the tool stops, and what the
 * tool ends with later goes to `late` only. The limit ends with the turn: once the turn's
 * signal aborts (a Stop, a closing runtime), the Stop's grace decides how long the tool may take.
 */
export function withinTimeLimit<T>(
  timeoutMs: number | undefined,
  turn: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
  late: () => void,
): Promise<T> {
  // Beyond what a timer can wait (about 24.8 days; `Infinity`): no limit.
  if (timeoutMs === undefined || timeoutMs > MAX_TIMER_MS || turn.aborted) return run(turn);
  const limit = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new ToolTimedOut(timeoutMs);
      limit.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const endLimit = () => clearTimeout(timer);
  turn.addEventListener("abort", endLimit, { once: true });
  const work = run(AbortSignal.any([turn, limit.signal]));
  work.then(
    () => limit.signal.aborted && late(),
    () => limit.signal.aborted && late(),
  );
  return Promise.race([work, timedOut]).finally(() => {
    clearTimeout(timer);
    turn.removeEventListener("abort", endLimit);
  });
}
