import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import Database from "better-sqlite3";
import { openFailure } from "./sqlite-errors.js";

/**
 * Claims the file for this store alone: a lock file beside it (`<file>.lock`, an empty
 * SQLite database) is opened in `EXCLUSIVE` locking mode and written once, which takes a
 * lock the connection keeps until it closes (the operating system lets go of it when the
 * process dies). A second process, or a second store on the same file, fails here, at
 * start, rather than giving one tool call two results; several instances share one
 * Postgres database instead. The database itself stays open to a second connection of
 * this store's: the one that checkpoints its WAL in a worker thread. Returns the release.
 */
export function claim(path: string): () => void {
  // A second store in this process is told so at once: the lock file would make it wait,
  // then blame another process.
  const file = join(realpathSync(dirname(path)), basename(path));
  const held = heldFiles();
  if (held.has(file)) {
    throw new Error(
      `this process already has a sqliteStore open on ${path}: close that store first, or keep one ` +
        "runtime for the process (under a dev server that runs modules again, keep it on globalThis)",
    );
  }
  let lock: Database.Database;
  try {
    lock = new Database(`${path}.lock`);
  } catch (error) {
    throw openFailure(error, `${path}.lock`);
  }
  try {
    lock.pragma("locking_mode = EXCLUSIVE");
    // A process that is just exiting (a restart) gets a moment to let go.
    lock.pragma("busy_timeout = 2000");
    lock.exec("BEGIN EXCLUSIVE; COMMIT");
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === "SQLITE_BUSY") {
      throw new Error(
        `another hitl-kit process holds ${path}; use postgresStore to run several (a build or a dev server's worker that loads the module making the store counts too: make it on the first request)`,
        { cause: error },
      );
    }
    throw openFailure(error, `${path}.lock`);
  }
  held.add(file);
  return () => {
    if (lock.open) lock.close();
    held.delete(file);
  };
}

/** The files this process's stores hold, shared by every copy of this module a dev server may have loaded. */
function heldFiles(): Set<string> {
  const key = Symbol.for("hitl-kit.sqlite-files");
  const global = globalThis as { [key]?: Set<string> };
  global[key] ??= new Set();
  return global[key];
}
