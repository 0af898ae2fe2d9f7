import type { SessionStore } from "./records.js";

/** Options of {@link StoreUnavailable}. */
export interface StoreUnavailableOptions {
  /** What is wrong, in the store's own words (a full disk, a read-only file); by default, that it cannot be reached and why. */
  message?: string;
}

/**
 * A store could not reach its database: a connection was refused, dropped or shut down
 * (a database restarting, a network blip), or it cannot write its file for now (SQLite: a
 * full disk, a read-only file, an I/O error), so what was asked may be asked again once it
 * is back. A write that fails this way may or may not have been applied. The runtime
 * answers such a failure with `503 unavailable`, and a turn it drives waits for the store
 * and goes on rather than failing. A custom {@link SessionStore} throws it for the same reasons.
 */
export class StoreUnavailable extends Error {
  /** Always `"StoreUnavailable"`, so a check need not import the class. */
  override readonly name = "StoreUnavailable";

  constructor(cause: unknown, options: StoreUnavailableOptions = {}) {
    super(
      options.message ??
        `The session store cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
