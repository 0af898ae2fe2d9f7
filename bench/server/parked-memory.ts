import { collectGarbage, rssMiB } from "../timer.js";
import { inBatches, startRuntime } from "./fixture.js";

/** RSS growth while 10,000 sessions sit parked (SQLite store, scripted model, in-process handler). */
export async function measureParkedMemory(count = 10_000) {
  const bench = startRuntime();
  // Warm up every code path first, so the growth is what parked sessions cost: 2,000 parks
  // also start the WAL checkpointer and fill SQLite's page caches (RSS before shows them).
  await inBatches(Array.from({ length: 2_000 }), 50, () => bench.park());
  await bench.runtime.idle();
  collectGarbage();
  collectGarbage();
  const before = rssMiB();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  await inBatches(Array.from({ length: count }), 50, () => bench.park());
  await bench.runtime.idle();
  const seconds = (performance.now() - started) / 1000;
  collectGarbage();
  collectGarbage();
  const after = rssMiB();
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const open = await bench.runtime.listSessions({ limit: 1 });
  await bench.close();
  return { before, after, growth: after - before, heapGrowth, seconds, sample: open.length };
}
