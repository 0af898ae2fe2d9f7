import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime, scriptedModel } from "@hitl-kit/server";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { writeCrashedSession } from "../../packages/server/test/crashed-session.js";
import { now, percentile } from "../timer.js";
import { inBatches, pickTemplate } from "./fixture.js";

const sessions = 10_000;
const warmUps = 1;
const runs = 10;

/** Writes 10,000 sessions as a crash leaves them: a turn running, an assistant message cut off mid-stream. */
async function writeCrashedFile(path: string) {
  const store = sqliteStore(path);
  await inBatches(
    Array.from({ length: sessions }, (_, index) => index),
    100,
    (index) => writeCrashedSession(store, index),
  );
  await store.close();
}

/** One restart on a copy of the crashed file: until it is ready (serving), and until every turn has parked again. */
async function recoverOnce(crashed: string, dir: string, run: number) {
  const path = join(dir, `run-${run}.sqlite`);
  copyFileSync(crashed, path);
  const store = sqliteStore(path);
  const start = now();
  const runtime = createAgentRuntime({
    model: scriptedModel(() => ({
      text: "Pick one.",
      toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "bold"] } }],
    })),
    tools: [pickTemplate],
    store,
    logger: { warn: () => {}, error: () => {} },
  });
  await runtime.ready;
  const readyMs = now() - start;
  await runtime.idle();
  const parkedMs = now() - start;
  const parked = (await store.listSessions({ limit: sessions })).filter((session) => session.status === "waiting");
  await runtime.close();
  await store.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  return { readyMs, parkedMs, parked: parked.length };
}

/**
 * 10,000 sessions left mid-stream by a crash, then a new runtime on (a copy of) the same
 * SQLite file: how long until every one is picked up (`ready`), and until every turn has
 * closed its cut-off message, run its model step again and parked once more. One warm-up
 * restart, then ten measured, each on a fresh copy.
 */
export async function measureRecovery() {
  const dir = mkdtempSync(join(tmpdir(), "hitl-recovery-"));
  const crashed = join(dir, "crashed.sqlite");
  await writeCrashedFile(crashed);
  const results: Awaited<ReturnType<typeof recoverOnce>>[] = [];
  for (let run = 0; run < warmUps + runs; run++) {
    const result = await recoverOnce(crashed, dir, run);
    if (run >= warmUps) results.push(result);
  }
  rmSync(dir, { recursive: true, force: true });
  const ready = results.map((result) => result.readyMs);
  const parked = results.map((result) => result.parkedMs);
  return {
    sessions,
    runs,
    readyMs: percentile(ready, 0.5),
    readySpread: [Math.min(...ready), Math.max(...ready)] as [number, number],
    parkedMs: percentile(parked, 0.5),
    parkedSpread: [Math.min(...parked), Math.max(...parked)] as [number, number],
    // Every run must park every session again, or its time means nothing.
    parked: Math.min(...results.map((result) => result.parked)),
  };
}
