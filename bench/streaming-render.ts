/**
 * Streaming render in happy-dom, the fast table: hitl-kit's `useAgent` beside the AI SDK's
 * `useChat` (throttle 16, and unthrottled), React's production build, all in one process,
 * interleaved run by run after warm-up runs, the reply's DOM text checked every run. The
 * bytes are the same text at the same pacing, each side in its own wire format
 * (render/wire-server.ts). Chromium's table (streaming-browser.ts) is the one with targets.
 */
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { runNodeJson } from "./child.js";
import type { HappyDomCase, HappyDomRun } from "./render/happy-dom-run.js";
import { fmtSpread, spreadOf } from "./render/spread.js";
import { type Variant, variants } from "./render/stream-case.js";
import { wireBytes } from "./render/wire-server.js";
import { fmt, printGrid, ratio, verdict } from "./table.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** The machine's load when the runs start: a shared machine's other work stretches every task, long tasks most. */
const loadBefore = loadavg()[0]!;

const cases: HappyDomCase[] = [
  { name: "burst", shape: { deltas: 20_000, rate: 0, history: 0 }, warmups: 2, runs: 10 },
  { name: "rate", shape: { deltas: 200, rate: 100, history: 0 }, warmups: 1, runs: 10 },
  { name: "history", shape: { deltas: 2000, rate: 0, history: 5000 }, warmups: 1, runs: 10 },
];

const outfile = here("results/build/happy-dom-run.mjs");
await esbuild.build({
  entryPoints: [here("render/happy-dom-run.tsx")],
  outfile,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  jsx: "automatic",
  conditions: ["@hitl-kit/source"],
  define: { "process.env.NODE_ENV": '"production"' },
  external: ["happy-dom"],
  logLevel: "error",
});
const result = await runNodeJson<HappyDomRun[]>(["--expose-gc", outfile, JSON.stringify(cases)], 280_000);
if (!result.ok) throw new Error(`The happy-dom runs failed: ${result.reason}`);
const runs = result.value;

const spread = (name: string, variant: Variant, pick: (run: HappyDomRun) => number) =>
  spreadOf(runs.filter((run) => run.case === name && run.variant === variant).map(pick));
const [ours, throttled, plain] = variants;

/** One row: a measure for every variant, and ours ÷ throttle 16. */
function row(label: string, name: string, pick: (run: HappyDomRun) => number, unit: string): string[] {
  const [a, b, c] = [spread(name, ours, pick), spread(name, throttled, pick), spread(name, plain, pick)];
  return [label, fmtSpread(a, unit), fmtSpread(b, unit), fmtSpread(c, unit), ratio(a?.median, b?.median), "—", "—"];
}

const perDelta = (name: string) => cases.find((item) => item.name === name)!.shape.deltas;
const bytes = wireBytes(2000);
const rows: string[][] = [
  row("20k-delta burst: send → whole text in DOM", "burst", (run) => run.ms, "ms"),
  row("20k-delta burst: CPU (process)", "burst", (run) => run.cpuMs, "ms"),
  row("20k-delta burst: React commits", "burst", (run) => run.commits, ""),
  row("100 deltas/s, 200 deltas: CPU per delta", "rate", (run) => (run.cpuMs * 1000) / perDelta("rate"), "µs"),
  row("100 deltas/s: React commits", "rate", (run) => run.commits, ""),
  row("100 deltas/s: most commits in one frame", "rate", (run) => run.maxCommitsPerFrame, ""),
  row("5,000 prior messages + 2k-delta burst: whole text", "history", (run) => run.ms, "ms"),
  row("5,000 prior messages: CPU (process)", "history", (run) => run.cpuMs, "ms"),
  [
    "wire bytes per text delta (AI SDK: its UI message stream)",
    fmt(bytes.hitl, "B"),
    fmt(bytes.aiSdk, "B"),
    fmt(bytes.aiSdk, "B"),
    ratio(bytes.hitl, bytes.aiSdk),
    "≤ 1.2×",
    verdict(bytes.hitl <= 1.2 * bytes.aiSdk),
  ],
];

printGrid(
  "Streaming render (happy-dom)",
  ["case", "hitl-kit", "useChat throttle 16", "useChat", "hitl-kit ÷ throttle 16", "target", "met?"],
  rows,
  [
    `median (p25–p75) of ${cases.map((item) => `${item.runs} runs (${item.warmups} warm-up) for ${item.name}`).join(", ")}; both sides in one process, interleaved run by run; the reply's DOM text checked equal every run`,
    "React 19 production build (commits counted through the DevTools hook); the wire server runs in the same process (its CPU is in the CPU rows, the same bytes for every variant)",
    "hitl-kit renders with <MessageText> (finished paragraphs keep their nodes); useChat renders each text part in one element, as its docs do; rows are memoized on both sides",
    "happy-dom does no layout: the browser table (streaming-browser) is the one with the targets",
    `load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores`,
  ],
);
