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

describe("walCheckpointer", () => {
  it("copies the WAL in a worker, so the WAL starts over while commits go on", async () => {
    const { db, path, insert } = walDatabase(256 * 1024);
    let caughtUp = 0;
    const checkpointer = walCheckpointer(path, 256 * 1024, {
      catchUp: (wait) => {
        if (!wait) caughtUp++;
        db.pragma(`wal_checkpoint(${wait ? "FULL" : "PASSIVE"})`);
      },
      fallback: () => expect.unreachable("the worker runs"),
    });
    const row = "x".repeat(8_000);
    let largest = 0;
    // 2,000 commits of an 8 KB row, one per turn of the event loop as the store commits.
    for (let index = 0; index < 2_000; index++) {
      insert.run(row);
      checkpointer.committed();
      largest = Math.max(largest, walSize(path));
      await tick();
    }
    await checkpointer.close();
    // The worker copied the WAL (the store's thread then caught up after each of its replies)…
    expect(caughtUp).toBeGreaterThan(0);
    // …and the WAL stayed far below what every commit would take: over 60 MiB.
    expect(largest).toBeLessThan(12 * 1024 * 1024);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 2_000 });
    db.close();
  });

  it("checkpoints on the store's thread when the WAL outgrows its hard bound, as when commits outrun the disk", async () => {
    const { db, path, insert } = walDatabase(64 * 1024);
    const checkpointer = walCheckpointer(
      path,
      64 * 1024,
      { catchUp: (wait) => db.pragma(`wal_checkpoint(${wait ? "FULL" : "PASSIVE"})`), fallback: () => {} },
      1024 * 1024,
    );
    const row = "x".repeat(8_000);
    let largest = 0;
    // No turn of the event loop between commits: the worker's replies cannot arrive.
    for (let index = 0; index < 2_000; index++) {
      insert.run(row);
      checkpointer.committed();
      largest = Math.max(largest, walSize(path));
    }
    await checkpointer.close();
    // Without the bound the WAL would hold all 2,000 commits: over 60 MiB (a commit of an
    // 8 KB row writes about 8 pages). With it, a few times the bound: the size is looked at
    // every 32 commits (about 1 MiB here), and the worker's own checkpoints race the restart.
    expect(largest).toBeLessThan(12 * 1024 * 1024);
    db.close();
  });
});
