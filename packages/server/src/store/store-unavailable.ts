import type { SessionStore } from "./records.js";

/** Options of {@link StoreUnavailable}. */
export interface StoreUnavailableOptions {
  /** What is wrong, in the store's own words (a full disk, a read-only file); by default, that it cannot be reached and why. */
  message?: string;
  /** Trying again cannot help (see {@link StoreUnavailable.lasting}); default `false`. */
  lasting?: boolean;
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
  /**
   * `true` when trying again cannot help: this store serves nothing until someone fixes the
   * cause and restarts the process (a schema a newer version migrated, a pooler in
   * transaction mode). What another role may fix meanwhile (a grant, a release step's
   * migration) is not lasting: the store tries again. Requests still get `503` (another
   * instance may serve them), and the message is logged as an outage is, once and then now
   * and then; but no turn waits for it, and the runtime does not try to start again.
   */
  readonly lasting: boolean;

  constructor(cause: unknown, options: StoreUnavailableOptions = {}) {
    super(
      options.message ??
        `The session store cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.lasting = options.lasting ?? false;
  }
}
