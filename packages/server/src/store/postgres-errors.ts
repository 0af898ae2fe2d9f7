import { hostname } from "node:os";
import pg from "pg";
import { transactionPoolerError } from "./postgres-pooler.js";
import { reportStoreErrors } from "./report-store-errors.js";
import { StoreUnavailable } from "./store-unavailable.js";

/** Node's socket errors that mean the database could not be reached. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * PostgreSQL's errors that mean the server went away or cannot take the work now: class 08
 * (connection exception), an administrator's or a crash's shutdown, a server still
 * starting, a connection ended for idling (`idle_session_timeout`,
 * `idle_in_transaction_session_timeout`, which hosts often set), a statement cancelled
 * (its `statement_timeout` passed, waiting for a session's lock say), too many connections.
 */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03", "57P05", "25P03", "57014", "53300"]);

/** What `pg` itself says when a connection ended or could not be opened in time. */
const CLIENT_MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error",
  "timeout exceeded when trying to connect",
];

/** Whether a `pg` error says the database could not be reached rather than that the statement was wrong. */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === "string" && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith("08"))) {
    return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isUnreachable);
  return CLIENT_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * PostgreSQL's errors about a named statement: one prepared already (42P05) or one not
 * prepared (26000) on the connection. `pg` prepares each name once per connection and
 * remembers it, so they come only from a pooler in transaction mode that ran the statements
 * on other server connections.
 */
const PREPARED_CODES = new Set(["42P05", "26000"]);

/**
 * `error` as the store reports it: a {@link StoreUnavailable} when the database could not be
 * reached, {@link transactionPoolerError} when a named statement went astray, else as it is.
 */
export function asStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailable) return error;
  if (error instanceof Error && PREPARED_CODES.has((error as { code?: string }).code ?? "")) {
    return transactionPoolerError(error.message);
  }
  return isUnreachable(error) ? new StoreUnavailable(error) : error;
}

/**
 * `target` with each of its methods `names` throwing {@link StoreUnavailable} for a failure
 * to reach the database, and the pooler's error for a named statement gone astray (see
 * {@link asStoreError}; the same object: its methods are replaced).
 */
export function reportUnreachable<T extends object>(target: T, names: readonly (keyof T)[]): T {
  return reportStoreErrors(target, names, asStoreError);
}

/**
 * A pool whose connections never end the process when the server drops them. `pg` emits
 * `error` on a client whose connection ends; the pool listens while the client is idle and
 * stops when it hands it out, so a drop between the hand-out and the borrower's own listener
 * (or on a borrower with none) would be an unhandled `error` event. Each client keeps a
 * listener of its own: a query on the dropped client fails, which is how the drop is told.
 */
export function resilientPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ application_name: applicationName(), ...config });
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  return pool;
}

/**
 * What the store's connections are called in `pg_stat_activity`, so each instance's can be
 * told apart: `hitl-kit@<host name>` (a container's or pod's name). An `application_name` in
 * the connection URL wins.
 */
export function applicationName(): string {
  return `hitl-kit@${hostname()}`.slice(0, 63);
}
