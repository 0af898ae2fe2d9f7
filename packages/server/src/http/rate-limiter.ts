import { ProtocolError } from "@hitl-kit/protocol";

/**
 * Limits on what one caller may do per window. A caller is the principal the host's
 * `identify` hook named, else (anonymous callers can mint identities at will) the client's
 * address — from the connection, or from `X-Forwarded-For` only with `trustProxy`.
 */
export interface RateLimitOptions {
  /** State-changing requests (messages, responses, cancels, deletes) per caller per window (default 120). */
  max?: number;
  /** Sessions a caller may create per window (default 20). */
  maxCreates?: number;
  /** The window, in milliseconds (default 60 000). */
  windowMs?: number;
  /** The most callers tracked at once (default 10 000); past it, the oldest windows are forgotten first. */
  maxKeys?: number;
  /**
   * Event streams one principal (a person, or an anonymous cookie) may hold open at once on
   * this instance (default 32): each costs memory and a write per event. One more is
   * answered `429`; the client tries again later.
   */
  maxStreams?: number;
}

/** What a limit counts: session creations, or the other state-changing requests. */
export type RateBucket = "create" | "command";

/**
 * Fixed-window counters per caller and bucket, in bounded memory: windows are kept in the
 * order they started, so ended ones are dropped from the front, and when `maxKeys` are
 * tracked the oldest goes first.
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #max: Record<RateBucket, number>;
  /** Open event streams per caller; a caller with none has no entry, so this holds only the live ones. */
  readonly #streams = new Map<string, number>();
  readonly #maxStreams: number;

  constructor(options: RateLimitOptions = {}) {
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#max = { command: options.max ?? 120, create: options.maxCreates ?? 20 };
    this.#maxStreams = options.maxStreams ?? 32;
  }

  /**
   * Counts an event stream the caller opens; call what it returns once the stream ends.
   * @throws {ProtocolError} `rate_limited` (429) when the caller holds `maxStreams` already
   */
  openStream(caller: string): () => void {
    const open = this.#streams.get(caller) ?? 0;
    if (open >= this.#maxStreams) {
      throw new ProtocolError(
        "rate_limited",
        `Too many open event streams (${open}) for one caller; close some, or retry in 5 s.`,
        { retryAfterSeconds: 5 },
      );
    }
    this.#streams.set(caller, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#streams.get(caller) ?? 1) - 1;
      if (left > 0) this.#streams.set(caller, left);
      else this.#streams.delete(caller);
    };
  }

  /** How many windows are tracked. */
  get size(): number {
    return this.#windows.size;
  }

  /**
   * Counts a request of the caller; returns what takes it back (for a request the server
   * could not serve, a `503`, which the caller's retry should not pay for twice).
   * @throws {ProtocolError} `rate_limited` (429), with `retryAfterSeconds`, when the caller is over the limit
   */
  check(bucket: RateBucket, caller: string, now = Date.now()): () => void {
    const key = `${bucket}\u0000${caller}`;
    const window = this.#windows.get(key);
    if (window && now - window.start < this.#windowMs) {
      window.count += 1;
      if (window.count <= this.#max[bucket]) return uncount(window);
      const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.#windowMs - now) / 1000));
      const what = bucket === "create" ? "sessions created" : "requests";
      throw new ProtocolError("rate_limited", `Too many ${what}; retry in ${retryAfterSeconds} s.`, {
        retryAfterSeconds,
      });
    }
    this.#windows.delete(key);
    this.#evict(now);
    const started = { start: now, count: 1 };
    this.#windows.set(key, started);
    return uncount(started);
  }

  #evict(now: number): void {
    for (const [key, window] of this.#windows) {
      if (now - window.start < this.#windowMs && this.#windows.size < this.#maxKeys) return;
      this.#windows.delete(key);
    }
  }
}

/** Takes one request back from a window, once. */
function uncount(window: { count: number }): () => void {
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    window.count = Math.max(0, window.count - 1);
  };
}
