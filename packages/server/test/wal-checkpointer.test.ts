import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { walCheckpointer } from "../src/store/wal-checkpointer.js";
import { tempDir } from "./harness.js";

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.cleanup();
});

/** A WAL database written as the store writes it: no checkpoints of SQLite's own, the WAL cut back when it starts over. */
function walDatabase(limit: number) {
  const dir = tempDir();
  dirs.push(dir);
  const path = join(dir.path, "wal.sqlite");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.pragma("busy_timeout = 5000");
  db.pragma(`journal_size_limit = ${limit}`);
  db.exec("CREATE TABLE t (body TEXT NOT NULL)");
  return { db, path, insert: db.prepare("INSERT INTO t (body) VALUES (?)") };
}

const walSize = (path: string) => statSync(`${path}-wal`).size;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The store's side of the checkpoints: commits stop while the worker finishes one. */
function pausing() {
  const state = { pauses: 0, paused: undefined as Promise<void> | undefined, resume: () => {} };
  const hooks = {
    pause: () => {
      state.pauses++;
      state.paused = new Promise<void>((resolve) => (state.resume = resolve));
    },
    resume: () => {
      state.paused = undefined;
      state.resume();
    },
  };
  return { state, hooks };
}

describe("walCheckpointer", () => {
  it("copies the WAL in a worker and starts it over there, while commits go on", async () => {
    const { db, path, insert } = walDatabase(256 * 1024);
    const { state, hooks } = pausing();
    const checkpointer = walCheckpointer(path, 256 * 1024, {
      ...hooks,
      fallback: () => expect.unreachable("the worker runs"),
    });
    const row = "x".repeat(8_000);
    let largest = 0;
    // 2,000 commits of an 8 KB row, one per turn of the event loop as the store commits,
    // none while the worker finishes a checkpoint.
    for (let index = 0; index < 2_000; index++) {
      if (state.paused) await state.paused;
      insert.run(row);
      checkpointer.committed();
      largest = Math.max(largest, walSize(path));
      await tick();
    }
    await checkpointer.close(() => {});
    // The worker finished its checkpoints in pauses, and wrote the row that starts the WAL over…
    expect(state.pauses).toBeGreaterThan(0);
    expect(db.prepare("SELECT COUNT(*) AS n FROM wal_restarts").get()).toEqual({ n: 1 });
    // …so the WAL stayed far below what every commit would take: over 30 MiB.
    expect(largest).toBeLessThan(12 * 1024 * 1024);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 2_000 });
    db.close();
  });

  it("stops commits past the WAL's hard bound until the worker has caught up, as when commits outrun the disk", async () => {
    const { db, path, insert } = walDatabase(64 * 1024);
    const { state, hooks } = pausing();
    const checkpointer = walCheckpointer(path, 64 * 1024, { ...hooks, fallback: () => {} }, 1024 * 1024);
    const row = "x".repeat(8_000);
    let largest = 0;
    // No turn of the event loop between commits unless commits are paused: without the
    // pause, the worker's replies could not arrive.
    for (let index = 0; index < 2_000; index++) {
      if (state.paused) await state.paused;
      insert.run(row);
      checkpointer.committed();
      largest = Math.max(largest, walSize(path));
    }
    await checkpointer.close(() => {});
    // Without the bound the WAL would hold all 2,000 commits: over 30 MiB. With it, a few
    // times the bound: the size is looked at every 32 commits (about 0.5 MiB here).
    expect(largest).toBeLessThan(12 * 1024 * 1024);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 2_000 });
    db.close();
  });
});
