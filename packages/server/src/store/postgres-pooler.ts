import { randomBytes } from "node:crypto";
import pg from "pg";
import { StoreUnavailable } from "./store-unavailable.js";

/** How long a notification sent through the pool may take to reach the listening connection. */
export const NOTIFIED_WITHIN_MS = 5_000;

/**
 * The error for a database URL that leads to a pooler in transaction mode, after `evidence`
 * (what gave it away). Such a pooler hands each transaction to any of its server
 * connections, so what this store keeps on a connection of its own (a session's advisory
 * lock, `LISTEN`, named statements) lands on connections other clients get next.
 */
export function transactionPoolerError(evidence: string): Error {
  return new Error(
    `postgresStore: ${evidence}; the database URL looks like a connection pooler in transaction mode (PgBouncer, Supavisor, a host's pooled URL); hitl-kit needs a direct connection or a pooler in session mode: use the direct URL (Neon: the host without "-pooler"; Supabase: the direct connection, or the session pooler on port 5432), or set the pooler's pool_mode to session. Its session locks and LISTEN need a connection of their own.`,
  );
}

/**
 * Checks that a connection keeps its session from one statement to the next, as a direct
 * connection and a pooler in session mode do: a setting made on connection `a` (for the
 * session, not the transaction) must still be there in its next statement, while `b` holds a
 * transaction open meanwhile and must not see it. A pooler in transaction mode gives each
 * transaction whichever server connection is free: `b`'s is likely the one `a` just had (it
 * reuses the most recent first), and `a`'s next one then another, so one of the two tells.
 * Then `a`'s backend must stay the same across a transaction of `b`'s (see below).
 * Rejects with {@link transactionPoolerError}, or with what connecting failed with.
 */
export async function checkSessionKept(connectionString: string): Promise<void> {
  const [a, b] = [new pg.Client({ connectionString }), new pg.Client({ connectionString })];
  for (const client of [a, b]) client.on("error", () => {});
  try {
    await Promise.all([a.connect(), b.connect()]);
    const mark = randomBytes(8).toString("hex");
    const read = "SELECT current_setting('hitl_kit.session_check', true) AS mark";
    await a.query(`SELECT set_config('hitl_kit.session_check', '${mark}', false)`);
    await b.query("BEGIN");
    // Sent before `b` lets its server connection go: with a pool of one, it waits for it.
    const onA = a.query<{ mark: string | null }>(read);
    onA.catch(() => {});
    const onB = await b.query<{ mark: string | null }>(read);
    await b.query("ROLLBACK");
    const kept = (await onA).rows[0]?.mark === mark && onB.rows[0]?.mark !== mark;
    if (!kept) throw transactionPoolerError("a setting made on a connection was gone from its next statement");
    // The other way round, which a pooler that reuses the connection freed last (PgBouncer's
    // default) fails every time, whatever else runs: `b` holds a server connection while `a`
    // runs a statement on another one, then frees it just before `a`'s next statement, which
    // lands on it. A connection that keeps its session runs both of `a`'s in one backend.
    const backend = "SELECT pg_backend_pid() AS pid";
    await b.query("BEGIN");
    await b.query(backend);
    const first = (await a.query<{ pid: number }>(backend)).rows[0]?.pid;
    await b.query("COMMIT");
    const second = (await a.query<{ pid: number }>(backend)).rows[0]?.pid;
    if (first !== second)
      throw transactionPoolerError("two statements of one connection ran in different server sessions");
  } finally {
    await Promise.all([a.end().catch(() => {}), b.end().catch(() => {})]);
  }
}

/**
 * Round trips of a notification from the store's pool to its listening connection (`LISTEN`
 * on the control channel). Behind a pooler in transaction mode, the `LISTEN` ran on a server
 * connection the pooler took back, so a notification never reaches the listening one.
 */
export class NotifyProbes {
  readonly #waiting = new Map<string, () => void>();

  /** The probe `nonce` reached the listening connection. */
  arrived(nonce: string): void {
    this.#waiting.get(nonce)?.();
  }

  /**
   * Sends a probe (`send`, through the pool) and waits for it. Rejects with
   * {@link transactionPoolerError} when it does not arrive within {@link NOTIFIED_WITHIN_MS},
   * or as {@link StoreUnavailable} when the listening connection was replaced meanwhile
   * (`reconnected`), which may have lost it.
   */
  async check(send: (nonce: string) => Promise<unknown>, reconnected: () => boolean): Promise<void> {
    const nonce = randomBytes(6).toString("hex");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.#waiting.set(nonce, () => resolve(true));
    });
    try {
      await send(nonce);
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), NOTIFIED_WITHIN_MS);
      });
      if (await Promise.race([arrived, late])) return;
      if (reconnected()) {
        throw new StoreUnavailable(new Error("the listening connection dropped while it was checked"));
      }
      throw transactionPoolerError(
        `a notification sent through the pool did not reach the listening connection within ${NOTIFIED_WITHIN_MS / 1000} s`,
      );
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(nonce);
    }
  }
}
