import type { SessionStore } from "../store/records.js";

const PAGE = 100;

/**
 * Deletes sessions idle for longer than `maxIdleMs`: one sweep when started, then one
 * every quarter of that age (at least every second, at most every hour). Several
 * runtimes may sweep one store; deleting a session twice is harmless.
 */
export class RetentionSweeper {
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly maxIdleMs: number,
    private readonly deleteSession: (sessionId: string) => Promise<void>,
    /** Told when a sweep failed (the store could not be reached): the next sweep tries again. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    if (!Number.isFinite(maxIdleMs) || maxIdleMs <= 0) {
      throw new RangeError(`deleteIdleAfter must be a positive number of milliseconds, not ${maxIdleMs}.`);
    }
  }

  start(): void {
    const sweep = () => void this.sweep().catch(this.onError);
    sweep();
    this.#timer = setInterval(sweep, Math.min(Math.max(this.maxIdleMs / 4, 1000), 3_600_000));
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Deletes every session idle past the age; a sweep already under way is not doubled. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const before = new Date(Date.now() - this.maxIdleMs).toISOString();
    const tried = new Set<string>();
    for (;;) {
      const idle = (await this.store.listIdleSessions(before, PAGE)).filter((sessionId) => !tried.has(sessionId));
      for (const sessionId of idle) {
        tried.add(sessionId);
        await this.deleteSession(sessionId);
      }
      // A session that could not be deleted is listed again; it is not tried twice in one sweep.
      if (idle.length === 0) return;
    }
  }
}
