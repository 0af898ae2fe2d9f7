import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { isAbsolute, join } from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Copies the SQLite WAL back into the database file from a worker thread, so the store's
 * thread never waits for the disk. SQLite's own checkpoint runs inside the commit that
 * crosses 1,000 pages of WAL and syncs the file there: under load that blocked the event
 * loop for half of its time. The store turns that off (`wal_autocheckpoint = 0`) and calls
 * {@link WalCheckpointer.committed} after each commit; once the WAL passes `walBytes`, a
 * second connection in a worker copies it (passive checkpoints, which never block
 * writers) and flushes what it copied to disk, then the store stops committing for a
 * moment while the worker copies the last frames and starts the WAL over. The syncs
 * `synchronous = NORMAL` makes (the WAL before a checkpoint, the file after one, the WAL's
 * header when it starts over) all happen on the worker's thread: the store's thread makes
 * none, and the pause holds only the last few frames' syncs.
 */
export interface WalCheckpointer {
  /** Called after each commit: checks the WAL's size every few commits and starts a checkpoint when it is due. */
  committed(): void;
  /**
   * Waits for a checkpoint under way (the store commits again when it ends), stops the
   * worker, then calls `closeConnection` (the store's own) and closes the files it opened.
   * In that order: closing a descriptor of the database file drops every POSIX lock this
   * process holds on it, SQLite's included, so they close after SQLite's connections.
   */
  close(closeConnection: () => void): Promise<void>;
}

/** What the store does around the worker's checkpoints. */
export interface CheckpointHooks {
  /**
   * Stop committing: writes wait in the store's queue, and its thread goes on with
   * everything else. The worker then finishes the checkpoint and starts the WAL over: the
   * WAL starts over only once a checkpoint has caught up with its end, which the worker,
   * racing commits made every tick, would seldom see. Also called past the hard bound, so
   * the copy catches up with commits that outrun the disk instead of the WAL growing.
   */
  pause(): void;
  /** Commit again, beginning with the writes that waited. */
  resume(): void;
  /** Called when the worker cannot run: SQLite's own checkpoints take over again. */
  fallback(): void;
}

/** How many commits pass between two looks at the WAL's size. */
const COMMITS_PER_LOOK = 32;

/** The most passive checkpoints the worker runs while commits go on. */
const MAX_PASSES = 8;
/** A pass that copied no more frames than this has caught up closely enough to stop. */
const CLOSE_ENOUGH_FRAMES = 64;

/**
 * The worker: one connection. `copy` runs passive checkpoints while commits go on, until
 * they catch up; `finish`, sent while the store commits nothing, copies the last frames
 * and writes one row, which starts the WAL over (and syncs its new header) on this thread.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
db.pragma("journal_size_limit = " + workerData.hardBytes);
const fs = require("node:fs");
let restart;
const copy = () => {
  // Each pass copies what was committed up to its start; the next, what came during it.
  // While passes shrink, the copy is catching up with the commits: go on until one is
  // short, so the pause that finishes the checkpoint copies only the last few frames. A
  // pass that did not shrink by half says the commits are as fast as the copy: more passes
  // would only delay the finish while the WAL grows.
  let copied = 0;
  let previous = Infinity;
  for (let pass = 0; pass < ${MAX_PASSES}; pass += 1) {
    const [{ checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
    const fresh = checkpointed - copied;
    copied = checkpointed;
    if (fresh <= ${CLOSE_ENOUGH_FRAMES} || fresh > previous / 2) break;
    previous = fresh;
  }
  // Flush what the passes copied, and the WAL written since: the finish syncs both again,
  // in the pause, and has only what comes after this left to wait for.
  fs.fsyncSync(workerData.files.database);
  fs.fsyncSync(workerData.files.wal);
};
const finish = () => {
  const [{ log, checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
  // Copied to its end (no reader held an older snapshot): the next write starts the WAL over.
  if (log === 0 || checkpointed !== log) return;
  if (!restart) {
    db.exec("CREATE TABLE IF NOT EXISTS wal_restarts (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
    restart = db.prepare("INSERT OR REPLACE INTO wal_restarts (id, at) VALUES (1, ?)");
  }
  restart.run(Date.now());
};
parentPort.on("message", (step) => {
  let reply;
  try {
    if (step === "copy") copy();
    else finish();
    reply = { ok: true };
  } catch (error) {
    reply = { ok: false, message: String(error && error.message || error) };
  }
  parentPort.postMessage(reply);
});
parentPort.once("close", () => db.close());
`;

/**
 * @param walBytes the WAL's size at which the worker starts a checkpoint
 * @param hooks what the store does around the checkpoint's last step
 * @param hardBytes the WAL's size at which the store stops committing until the worker has
 *   caught up, because commits outrun the disk: writes then wait instead of the WAL growing
 *   without end. A WAL file grown past it is cut back to it when it starts over; below it,
 *   the file keeps its size and is written over (cutting it back each time made the
 *   restart wait for the file system to free and discard its blocks).
 */
export function walCheckpointer(
  path: string,
  walBytes: number,
  hooks: CheckpointHooks,
  hardBytes = 16 * walBytes,
): WalCheckpointer {
  let driver: string | undefined;
  let worker: Worker | undefined;
  let files: { database: number; wal: number; shm: number } | undefined;
  /** Every descriptor opened, closed only after SQLite's connections (see `close`). */
  const opened: number[] = [];
  /**
   * The database file, its WAL and its WAL index, read-only: the worker flushes the first
   * two (a descriptor of a file flushes it whoever wrote it), and the WAL index says how
   * much WAL is in use. The WAL first: until a commit has made it, nothing else is opened.
   */
  const openFiles = () => {
    const [wal, database, shm] = ["-wal", "", "-shm"].map((suffix) => {
      const fd = openSync(`${path}${suffix}`, "r");
      opened.push(fd);
      return fd;
    }) as [number, number, number];
    return { database, wal, shm };
  };
  let running: Promise<void> | undefined;
  let paused = false;
  let commits = 0;
  let failedOnce = false;

  const pause = () => {
    if (paused) return;
    paused = true;
    hooks.pause();
  };
  const resume = () => {
    if (!paused) return;
    paused = false;
    hooks.resume();
  };

  /** Sends one step to the worker; resolves with whether it ran. */
  const step = (current: Worker, name: "copy" | "finish") =>
    new Promise<boolean>((resolve) => {
      const done = (ran: boolean) => {
        current.off("message", replied);
        current.off("error", failed);
        current.off("exit", failed);
        resolve(ran);
      };
      const replied = () => done(true);
      // A worker that fails, or ends without a word, must not leave the store's commits paused.
      const failed = () => done(false);
      current.on("message", replied);
      current.once("error", failed);
      current.once("exit", failed);
      current.postMessage(name);
    });

  const checkpoint = () => {
    try {
      driver ??= resolveDriver();
    } catch {
      // No better-sqlite3 the worker could load (bundled into the app, say): SQLite checkpoints again.
      failedOnce = true;
      hooks.fallback();
      return;
    }
    worker ??= new Worker(workerSource, { eval: true, workerData: { driver, path, hardBytes, files } });
    // The worker keeps no event loop alive between checkpoints: a store left open does not hold the process.
    worker.unref();
    const current = worker;
    running = (async () => {
      let ran = await step(current, "copy");
      if (ran) {
        pause();
        ran = await step(current, "finish");
      }
      resume();
      running = undefined;
      if (!ran) {
        // A worker that cannot run leaves checkpointing to SQLite again, in the commits.
        failedOnce = true;
        worker = undefined;
        hooks.fallback();
      }
    })();
  };

  return {
    committed() {
      if (failedOnce || ++commits % COMMITS_PER_LOOK !== 0) return;
      let size = 0;
      try {
        files ??= openFiles();
        size = walInUse(files.shm);
      } catch {
        return;
      }
      if (size >= walBytes && !running) checkpoint();
      if (size >= hardBytes) pause();
    },
    async close(closeConnection) {
      await running;
      await worker?.terminate();
      worker = undefined;
      closeConnection();
      for (const fd of opened.splice(0)) closeSync(fd);
      files = undefined;
    },
  };
}

/**
 * The path of the better-sqlite3 this module loads, for the worker to load too: resolved
 * from this module's file, as its own `import` was. Not with `import.meta.url`, which only
 * an ES module has: a bundle written as CommonJS (esbuild `--format=cjs`, as Lambda builds
 * do) leaves it undefined, and Jest's CommonJS transform refuses the file outright. The
 * stack names the file in every form: a file URL in an ES module, a path in a CommonJS
 * bundle or under Jest. Without one, from the working directory.
 */
function resolveDriver(): string {
  return createRequire(thisFile() ?? join(process.cwd(), "index.js")).resolve("better-sqlite3");
}

/** This module's file (a `file:` URL or an absolute path), from the top frame of a stack trace. */
function thisFile(): string | undefined {
  const { prepareStackTrace, stackTraceLimit } = Error;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_error, sites) => sites[0]?.getFileName();
    const file: unknown = new Error().stack;
    return typeof file === "string" && (file.startsWith("file:") || isAbsolute(file)) ? file : undefined;
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

const header = Buffer.alloc(20);
const littleEndian = endianness() === "LE";

/**
 * The bytes of WAL in use (not the file's size: the file is written over once it starts
 * over), from the WAL index's header at the start of `<file>-shm`: the page size at byte
 * 14 and the last valid frame at byte 16, in the machine's byte order (sqlite.org/walformat.html).
 */
function walInUse(shm: number): number {
  if (readSync(shm, header, 0, header.length, 0) < header.length) return 0;
  const page = littleEndian ? header.readUInt16LE(14) : header.readUInt16BE(14);
  const frames = littleEndian ? header.readUInt32LE(16) : header.readUInt32BE(16);
  return frames * ((page === 1 ? 65_536 : page) + 24);
}
