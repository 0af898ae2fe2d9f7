/** How the event stream waits before reconnecting. */
export interface BackoffOptions {
  /** The first wait, in milliseconds (default 250). */
  initialDelayMs?: number;
  /** The longest wait, in milliseconds (default 5 000). */
  maxDelayMs?: number;
  /** The share of each wait that is random, from 0 to 1 (default 0.5), so reloaded tabs do not reconnect in step. */
  jitter?: number;
}

/** The wait before reconnect number `attempt` (from 0): doubling from the first wait up to the longest, less jitter. */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const { initialDelayMs = 250, maxDelayMs = 5_000, jitter = 0.5 } = options;
  const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt, 30));
  return delay * (1 - Math.min(1, Math.max(0, jitter)) * Math.random());
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
