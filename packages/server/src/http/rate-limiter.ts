import { ProtocolError } from "@hitl-kit/protocol";

/** How many commands one client may send to one session per window. */
export interface RateLimitOptions {
  /** Commands allowed per window. */
  max: number;
  /** The window, in milliseconds (default 60 000). */
  windowMs?: number;
  /** Who the client is (default: the `x-forwarded-for` header, else one bucket per session). */
  key?: (request: Request) => string;
}

/** A fixed-window counter per session and client; windows that ended are dropped. */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: RateLimitOptions) {}

  /** @throws {ProtocolError} `rate_limited` (429) when the client is over its limit */
  check(request: Request, sessionId: string): void {
    const windowMs = this.options.windowMs ?? 60_000;
    const now = Date.now();
    const who = this.options.key?.(request) ?? request.headers.get("x-forwarded-for") ?? "";
    const key = `${sessionId}\u0000${who}`;
    if (this.#windows.size > 10_000) {
      for (const [entry, window] of this.#windows) if (now - window.start >= windowMs) this.#windows.delete(entry);
    }
    const window = this.#windows.get(key);
    if (!window || now - window.start >= windowMs) {
      this.#windows.set(key, { start: now, count: 1 });
      return;
    }
    window.count += 1;
    if (window.count > this.options.max) {
      const retry = Math.ceil((window.start + windowMs - now) / 1000);
      throw new ProtocolError("rate_limited", `Too many requests to this session; retry in ${retry} s.`, {
        retryAfterSeconds: retry,
      });
    }
  }
}
