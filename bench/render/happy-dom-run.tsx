/**
 * The happy-dom table's runs, all in this one process: every variant of a case in turn,
 * interleaved run by run, after warm-up runs. Prints one line of JSON: every run's result.
 * Bundled by streaming-render.ts with React's production build.
 */
import "./dom-env.js";
import "./commit-hook.js";
import { go, prepare, type RunResult, teardown } from "./harness.js";
import { runIdOf, type StreamShape, type Variant, variants } from "./stream-case.js";
import { wireHandler } from "./wire-server.js";

/** A case of the table: its shape, and how many runs to throw away and to keep. */
export interface HappyDomCase {
  name: string;
  shape: StreamShape;
  warmups: number;
  runs: number;
}

/** One kept run: the page's measures and the process's CPU time. */
export type HappyDomRun = RunResult & { case: string; variant: Variant; cpuMs: number };

const cases = JSON.parse(process.argv[2] ?? "[]") as HappyDomCase[];
const handler = wireHandler();
const base = "http://bench.local";
const fetch: typeof globalThis.fetch = (input, init) => handler(new Request(input, init));

const kept: HappyDomRun[] = [];
let serial = 0;
for (const item of cases) {
  for (let rep = 0; rep < item.warmups + item.runs; rep++) {
    // Rotate the order, so no variant always runs first after another's garbage.
    const order = variants.map((_, index) => variants[(index + rep) % variants.length]!);
    for (const variant of order) {
      const runId = runIdOf(item.shape, `h${serial++}`);
      await prepare({ variant, runId, base, fetch });
      (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      const result = await go();
      const used = process.cpuUsage(cpu);
      teardown();
      if (!result.textOk) throw new Error(`${variant} showed the wrong text in run ${runId}.`);
      if (rep >= item.warmups) {
        kept.push({ ...result, case: item.name, variant, cpuMs: (used.user + used.system) / 1000 });
      }
    }
  }
}
console.log(JSON.stringify(kept));
process.exit(0);
