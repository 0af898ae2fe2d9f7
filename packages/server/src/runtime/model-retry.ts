import { ModelStalled } from "./model-step.js";

/** How many times a model call that failed before it streamed anything is tried again, by default (`modelRetries`). */
export const DEFAULT_MODEL_RETRIES = 2;
/** The wait before the first retry, by default (`modelRetryDelayMs`); it doubles for each one after. */
export const DEFAULT_MODEL_RETRY_DELAY_MS = 2_000;
/** The longest wait a provider's `retry-after` may ask for and be heeded; past it the backoff applies. */
const MAX_ASKED_DELAY_MS = 60_000;

/**
 * How long to wait before calling the model again after `error` ended its `attempt`th call
 * (0 for the first), or `undefined` when trying again cannot help: only a stall and what the
 * provider says is worth retrying (`isRetryable`: a timeout, 409, 429, a 5xx, a dropped
 * connection) are retried. The provider's `retry-after-ms` or `retry-after` is heeded up to a
 * minute; otherwise the wait is `delayMs`, doubled per attempt.
 */
export function modelRetryDelay(error: unknown, attempt: number, delayMs: number): number | undefined {
  const retryable = error instanceof ModelStalled || (error as { isRetryable?: unknown } | null)?.isRetryable === true;
  if (!retryable) return undefined;
  const headers = (error as { responseHeaders?: Record<string, string | undefined> }).responseHeaders;
  return askedDelay(headers) ?? delayMs * 2 ** attempt;
}

function askedDelay(headers: Record<string, string | undefined> | undefined): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers["retry-after-ms"];
  const seconds = headers["retry-after"];
  let delay: number | undefined;
  if (milliseconds !== undefined && milliseconds.trim() !== "") delay = Number(milliseconds);
  else if (seconds !== undefined && seconds.trim() !== "") {
    delay = /^\s*\d+(\.\d+)?\s*$/.test(seconds) ? Number(seconds) * 1000 : Date.parse(seconds) - Date.now();
  }
  return delay !== undefined && delay >= 0 && delay <= MAX_ASKED_DELAY_MS ? delay : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
