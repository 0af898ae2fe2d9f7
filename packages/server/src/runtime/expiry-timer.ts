import type { SessionStore } from "../store/records.js";

/**
 * One timer for the whole runtime, set for the earliest open request's `expiresAt`.
 * Holding one timer rather than one per request keeps parked sessions out of memory.
 */
export class ExpiryTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly store: SessionStore,
    private readonly expire: (sessionId: string, requestId: string) => Promise<void>,
  ) {}

  /** Re-reads the earliest expiry and sets the timer for it. */
  schedule(): void {
    void this.#schedule().catch(() => {});
  }

  /** Clears the timer for good. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #schedule(): Promise<void> {
    const next = await this.store.nextExpiry();
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    if (next === undefined) return;
    const delay = Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1);
    this.#timer = setTimeout(() => void this.#fire(), delay);
    this.#timer.unref?.();
  }

  async #fire(): Promise<void> {
    for (;;) {
      const due = await this.store.listExpiredRequests(Date.now(), 100);
      for (const { sessionId, requestId } of due) await this.expire(sessionId, requestId);
      if (due.length < 100) break;
    }
    this.schedule();
  }
}
