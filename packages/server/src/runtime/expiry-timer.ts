import type { SessionStore } from "../store/records.js";

/**
 * One timer for the whole runtime, set for the earliest open request's `expiresAt`.
 * Holding one timer rather than one per request keeps parked sessions out of memory.
 *
 * It also keeps a floor: no open request expires before it. The store's earliest expiry
 * sets it, and each request the runtime opens lowers it ({@link ExpiryTimer.opened}), so
 * while this process is the only writer, a session read before the floor has nothing due
 * and needs no look at its open requests ({@link ExpiryTimer.mayHaveDue}).
 */
export class ExpiryTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (`Infinity`: it is not set). */
  #target = Infinity;
  #stopped = false;
  /** The last settling of what was due failed: told once until one succeeds. */
  #failing = false;
  /** No open request expires before this; `undefined` until the store's earliest expiry is read. */
  #floor: number | undefined;
  /** For each read of the store's earliest expiry under way, the earliest request opened meanwhile. */
  readonly #reads = new Set<{ opened: number }>();

  constructor(
    private readonly store: SessionStore,
    private readonly expire: (sessionId: string, requestId: string) => Promise<void>,
    /** Told when settling what is due failed (the store could not be reached); it is tried again. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Re-reads the earliest expiry and sets the timer for it; when the store cannot answer, tries again in a second. */
  schedule(): void {
    void this.#schedule().catch(() => this.#retry());
  }

  /** Notes a request this runtime just opened that expires at `expiresAt`; the timer moves up if it must. */
  opened(expiresAt: number): void {
    if (this.#floor !== undefined) this.#floor = Math.min(this.#floor, expiresAt);
    for (const read of this.#reads) read.opened = Math.min(read.opened, expiresAt);
    if (expiresAt < this.#target) this.schedule();
  }

  /** Whether an open request may be due at `now`; `false` means certainly none is. */
  mayHaveDue(now: number): boolean {
    return this.#floor === undefined || this.#floor <= now;
  }

  /** Clears the timer for good. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #schedule(): Promise<void> {
    const read = { opened: Infinity };
    this.#reads.add(read);
    let next: number | undefined;
    try {
      next = await this.store.nextExpiry();
    } finally {
      this.#reads.delete(read);
    }
    // A request opened while the read was under way may be missing from it.
    const earliest = Math.min(next ?? Infinity, read.opened);
    this.#floor = earliest;
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#target = earliest;
    if (earliest === Infinity) return;
    const delay = Math.min(Math.max(0, earliest - Date.now()), 2 ** 31 - 1);
    this.#timer = setTimeout(() => void this.#fire(), delay);
    this.#timer.unref?.();
  }

  async #fire(): Promise<void> {
    this.#target = Infinity;
    try {
      for (;;) {
        const due = await this.store.listExpiredRequests(Date.now(), 100);
        for (const { sessionId, requestId } of due) await this.expire(sessionId, requestId);
        if (due.length < 100) break;
      }
      this.#failing = false;
    } catch (error) {
      // What is due stays open, and is looked at again.
      if (!this.#failing) this.onError(error);
      this.#failing = true;
      this.#retry();
      return;
    }
    this.schedule();
  }

  /** Looks again in a second. */
  #retry(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#target = Date.now() + RETRY_MS;
    this.#timer = setTimeout(() => this.schedule(), RETRY_MS);
    this.#timer.unref?.();
  }
}

/** How long the timer waits before it asks the store again after a failure. */
const RETRY_MS = 1_000;
