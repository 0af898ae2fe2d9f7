import { MAX_TIMER_MS, ModelStalled } from "./model-step.js";

/** How many times a model call that failed before it streamed anything is tried again, by default (`modelRetries`). */
export const DEFAULT_MODEL_RETRIES = 2;
/** The wait before the first retry, by default (`modelRetryDelayMs`); it doubles for each one after. */
export const DEFAULT_MODEL_RETRY_DELAY_MS = 2_000;
/** The longest wait a provider's `retry-after` is heeded for: a longer one is waited for this long. */
const MAX_ASKED_DELAY_MS = 60_000;

/**
 * How long to wait before calling the model again after `error` ended its `attempt`th call
 * (0 for the first), or `undefined` when trying again cannot help: only a stall and what the
 * provider says is worth retrying (`isRetryable`: a timeout, 409, 429, a 5xx, a dropped
 * connection) are retried. The provider's `retry-after-ms` or `retry-after` is heeded, for a
 * minute at most; without one the wait is `delayMs`, doubled per attempt.
 */
export function modelRetryDelay(error: unknown, attempt: number, delayMs: number): number | undefined {
  const retryable = error instanceof ModelStalled || (error as { isRetryable?: unknown } | null)?.isRetryable === true;
  if (!retryable) return undefined;
  const headers = (error as { responseHeaders?: unknown }).responseHeaders;
  return askedDelay(headers) ?? Math.min(delayMs * 2 ** attempt, MAX_TIMER_MS);
}

/** The wait a provider asks for: `retry-after-ms`, else `retry-after` (seconds or a date); one it cannot mean is ignored. */
function askedDelay(headers: unknown): number | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const named = (name: string) =>
    Object.entries(headers).find(([key, value]) => key.toLowerCase() === name && typeof value === "string")?.[1] as
      | string
      | undefined;
  const decimal = /^\s*\d+(\.\d+)?\s*$/;
  const milliseconds = named("retry-after-ms");
  const seconds = named("retry-after");
  const asked =
    milliseconds !== undefined && decimal.test(milliseconds)
      ? Number(milliseconds)
      : seconds === undefined
        ? undefined
        : decimal.test(seconds)
          ? Number(seconds) * 1000
          : Date.parse(seconds) - Date.now();
  return asked !== undefined && asked >= 0 ? Math.min(asked, MAX_ASKED_DELAY_MS) : undefined;
}

/** Resolves after `ms`, or rejects with the reason of the first of `signals` to abort, as soon as it does. */
export function delay(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = signals.find((signal) => signal.aborted);
    if (aborted) return reject(aborted.reason);
    const listeners = signals.map((signal) => {
      const stop = () => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener("abort", stop);
      return () => signal.removeEventListener("abort", stop);
    });
    const done = () => {
      clearTimeout(timer);
      for (const remove of listeners) remove();
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
  });
}
