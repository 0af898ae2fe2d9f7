import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * Copies the SQLite WAL back into the database file from a worker thread, so the store's
 * thread never waits for it. SQLite's own checkpoint runs inside the commit that crosses
 * 1,000 pages of WAL and syncs the file to disk there: under load that blocked the event
 * loop for half of its time. The store turns that off (`wal_autocheckpoint = 0`) and calls
 * {@link WalCheckpointer.committed} after each commit; once the WAL passes `walBytes`, a
 * second connection in a worker runs a passive checkpoint, which never blocks writers.
 */
export interface WalCheckpointer {
  /** Called after each commit: checks the WAL's size every few commits and starts a checkpoint when it is due. */
  committed(): void;
  /** Waits for a checkpoint under way and stops the worker. */
  close(): Promise<void>;
}

/** What the store does around the worker's checkpoints. */
export interface CheckpointHooks {
  /**
   * A checkpoint on the store's thread. Once the worker has copied the WAL, a passive one
   * copies what was committed meanwhile (a few pages): the WAL starts over only when a
   * checkpoint has caught up with its end, which the worker, racing commits made every
   * tick, seldom sees. Past the hard bound, one that waits (`wait`) for a checkpoint the
   * worker has under way, then copies everything.
   */
  catchUp(wait: boolean): void;
  /** Called when the worker cannot run: SQLite's own checkpoints take over again. */
  fallback(): void;
}

/** How many commits pass between two looks at the WAL's size. */
const COMMITS_PER_LOOK = 32;

/** The most passive checkpoints the worker runs for one message. */
const MAX_PASSES = 8;
/** A pass that copied no more frames than this has caught up closely enough to stop. */
const CLOSE_ENOUGH_FRAMES = 64;

/** The worker: one connection, passive checkpoints until they catch up, per message. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
parentPort.on("message", () => {
  let reply;
  try {
    // Each pass copies what was committed up to its start; the next, what came during it.
    // While passes shrink, the copy is catching up with the commits: go on until one is
    // short, so the store's thread copies only the last few frames. A pass that did not
    // shrink by half says the commits are as fast as the copy: more passes would only
    // delay the catch-up while the WAL grows.
    let copied = 0;
    let previous = Infinity;
    for (let pass = 0; pass < ${MAX_PASSES}; pass += 1) {
      const [{ checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
      const fresh = checkpointed - copied;
      copied = checkpointed;
      if (fresh <= ${CLOSE_ENOUGH_FRAMES} || fresh > previous / 2) break;
      previous = fresh;
    }
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
 * @param hooks what the store runs on its own thread
 * @param hardBytes the WAL's size at which the store's thread checkpoints itself, waiting
 *   for the disk, because the worker has fallen that far behind: writes faster than the
 *   disk takes them slow down instead of growing the WAL without end.
 */
export function walCheckpointer(
  path: string,
  walBytes: number,
  hooks: CheckpointHooks,
  hardBytes = 16 * walBytes,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let commits = 0;
  let failedOnce = false;

  const checkpoint = () => {
    worker ??= new Worker(workerSource, { eval: true, workerData: { driver, path } });
    // The worker keeps no event loop alive between checkpoints: a store left open does not hold the process.
    worker.unref();
    const current = worker;
    running = new Promise<void>((resolve) => {
      const done = () => {
        current.off("message", copied);
        current.off("error", failed);
        running = undefined;
        resolve();
      };
      const copied = () => {
        done();
        hooks.catchUp(false);
      };
      // A worker that cannot run leaves checkpointing to SQLite again, in the commits.
      const failed = () => {
        failedOnce = true;
        worker = undefined;
        done();
        hooks.fallback();
      };
      current.on("message", copied);
      current.once("error", failed);
      current.postMessage("checkpoint");
    });
  };

  return {
    committed() {
      if (failedOnce || ++commits % COMMITS_PER_LOOK !== 0) return;
      let size = 0;
      try {
        size = statSync(`${path}-wal`).size;
      } catch {
        return;
      }
      if (size >= hardBytes) hooks.catchUp(true);
      else if (size >= walBytes && !running) checkpoint();
    },
    async close() {
      await running;
      await worker?.terminate();
      worker = undefined;
    },
  };
}
