import { StoreUnavailable } from "./store-unavailable.js";

/**
 * What an SQLite error says about the file at `path` rather than about the statement, as a
 * phrase that names the file and the fix; `undefined` for any other error. Each passes
 * without a restart: the disk gets room, the file is made writable or put back, the
 * program holding its lock lets go. (This store's own connections never wait on each
 * other: the lock file keeps other hitl-kit processes out, and the checkpoint worker
 * writes only while the store holds its commits, so `SQLITE_BUSY` means another program
 * holds the file's write lock: after `busy_timeout` (5 s, the thread blocked), or at once
 * for a transaction that read before it wrote, which SQLite does not let wait.)
 */
export function fileTrouble(error: unknown, path: string): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== "string") return undefined;
  const said = `${code}: ${(error as Error).message}`;
  if (code === "SQLITE_FULL") {
    return `the disk holding ${path} is full (${said}): free some space`;
  }
  if (code === "SQLITE_READONLY_DBMOVED") {
    return `${path} was moved or deleted while the store had it open (${said}): put it back, or restart the server`;
  }
  if (code.startsWith("SQLITE_READONLY")) {
    return `${path} is read-only (${said}): let this process write the file, its -wal and -shm files and their folder`;
  }
  if (code.startsWith("SQLITE_IOERR")) return `reading or writing ${path} failed (${said}): check the disk`;
  if (code.startsWith("SQLITE_CANTOPEN")) {
    return `${path} cannot be opened or created (${said}): check that its folder exists and that this process may write in it`;
  }
  if (code.startsWith("SQLITE_BUSY")) {
    return `another program holds the write lock on ${path} (${said}), a sqlite3 shell or a backup in a write transaction, say: end it`;
  }
  return undefined;
}

/** `error` as the SQLite store reports it: a {@link StoreUnavailable} for trouble with its file (see {@link fileTrouble}), else as it is. */
export function asSqliteStoreError(error: unknown, path: string): unknown {
  if (error instanceof StoreUnavailable) return error;
  const trouble = fileTrouble(error, path);
  return trouble === undefined ? error : new StoreUnavailable(error, { message: `sqliteStore: ${trouble}` });
}

/** An error opening the store's file (or its lock file), trouble with the file said in words (see {@link fileTrouble}). */
export function openFailure(error: unknown, file: string): unknown {
  const trouble = fileTrouble(error, file);
  return trouble === undefined ? error : new Error(`sqliteStore: ${trouble}`, { cause: error });
}
