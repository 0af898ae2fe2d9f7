/**
 * Streaming render: an assistant message of N one-word text deltas, one per macrotask as
 * SSE bytes through a fake fetch, rendered by React 19 (production build) in happy-dom.
 * hitl-kit's `useAgent` beside `useChat` of `@ai-sdk/react`, without and with `throttle: 50`.
 */
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { runNodeJson } from "./child.js";
import type { RenderResult } from "./render/render-probe.js";
import { count, fmt, printTable, type Row, ratio, verdict } from "./table.js";
import { median, now } from "./timer.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const sizes = [1000, 5000, 20_000];
const reps = 3;
const budgetMs = 100_000;

/** Bundles a harness as a browser app would ship it: React's production build, our `src`. */
async function bundle(name: string): Promise<string> {
  const outfile = here(`results/build/${name}.mjs`);
  await esbuild.build({
    entryPoints: [here(`render/${name}.tsx`)],
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
  return outfile;
}

type Variant = "ours" | "useChat" | "useChat throttled";
const started = now();
const [ours, theirs] = await Promise.all([bundle("ours-harness"), bundle("use-chat-harness")]);
const argsOf: Record<Variant, (n: number) => string[]> = {
  ours: (n) => ["--expose-gc", ours, String(n)],
  useChat: (n) => ["--expose-gc", theirs, String(n)],
  "useChat throttled": (n) => ["--expose-gc", theirs, String(n), "50"],
};

const results = new Map<string, RenderResult[]>();
const failures = new Map<string, string>();
// Interleaved, so the machine's noise falls on every variant alike; medians of `reps` runs.
for (const n of sizes) {
  for (let rep = 0; rep < reps; rep++) {
    for (const variant of Object.keys(argsOf) as Variant[]) {
      const key = `${variant}@${n}`;
      const left = budgetMs - (now() - started);
      if (left < 3000) {
        failures.set(key, failures.get(key) ?? "skipped: out of time");
        continue;
      }
      const result = await runNodeJson<RenderResult>(argsOf[variant](n), Math.min(30_000, left));
      if (result.ok) results.set(key, [...(results.get(key) ?? []), result.value]);
      else failures.set(key, result.reason);
    }
  }
}

/** The median of one measure over a variant's runs at size `n`. */
function measure(variant: Variant, n: number, pick: (result: RenderResult) => number): number | undefined {
  const runs = results.get(`${variant}@${n}`);
  return runs?.length ? median(runs.map(pick)) : undefined;
}
const ms = (variant: Variant, n: number) => measure(variant, n, (result) => result.ms);
const label = (n: number) => n.toLocaleString("en-US");

const rows: Row[] = [];
for (const n of sizes) {
  const final = n === 20_000;
  const [mine, plain, throttled] = [ms("ours", n), ms("useChat", n), ms("useChat throttled", n)];
  rows.push({
    case: `N=${label(n)}: send → full text in DOM, vs useChat`,
    ours: fmt(mine, "ms"),
    anchor: fmt(plain, "ms"),
    ratio: ratio(mine, plain),
    target: final ? "≤ 0.25×" : "—",
    met: verdict(final && mine !== undefined && plain !== undefined ? mine <= plain / 4 : undefined),
  });
  rows.push({
    case: `N=${label(n)}: same, vs useChat throttle 50`,
    ours: fmt(mine, "ms"),
    anchor: fmt(throttled, "ms"),
    ratio: ratio(mine, throttled),
    target: final ? "≤ 1×" : "—",
    met: verdict(final && mine !== undefined && throttled !== undefined ? mine <= throttled : undefined),
  });
  const renders = (variant: Variant) => measure(variant, n, (result) => result.renders);
  rows.push({
    case: `N=${label(n)}: renders (anchor: useChat / throttled)`,
    ours: count(renders("ours")),
    anchor: `${count(renders("useChat"))} / ${count(renders("useChat throttled"))}`,
    ratio: ratio(renders("ours"), renders("useChat")),
    target: "—",
    met: "—",
  });
  const heap = (variant: Variant) => measure(variant, n, (result) => result.peakHeapMiB);
  rows.push({
    case: `N=${label(n)}: peak heap (anchor: useChat / throttled)`,
    ours: fmt(heap("ours"), "MiB"),
    anchor: `${fmt(heap("useChat"), "MiB")} / ${fmt(heap("useChat throttled"), "MiB")}`,
    ratio: ratio(heap("ours"), heap("useChat")),
    target: "—",
    met: "—",
  });
  const lag = (variant: Variant) => measure(variant, n, (result) => result.maxLagFrames);
  const ourLag = lag("ours");
  rows.push({
    case: `N=${label(n)}: longest text hidden, frames (anchor: throttled)`,
    ours: fmt(ourLag),
    anchor: fmt(lag("useChat throttled")),
    ratio: ratio(ourLag, lag("useChat throttled")),
    target: "≤ 1 frame",
    met: verdict(ourLag === undefined ? undefined : ourLag <= 1),
  });
}
const perDelta = (variant: Variant, n: number) => {
  const value = ms(variant, n);
  return value === undefined ? undefined : value / n;
};
const growth = (variant: Variant) => {
  const [small, large] = [perDelta(variant, 5000), perDelta(variant, 20_000)];
  return small === undefined || large === undefined ? undefined : large / small;
};
rows.push({
  case: "linear in N: cost per delta at 20,000 ÷ at 5,000 (anchor: useChat)",
  ours: fmt(growth("ours"), "×"),
  anchor: fmt(growth("useChat"), "×"),
  ratio: ratio(growth("ours"), growth("useChat")),
  target: "≤ 1.5×",
  met: verdict(growth("ours") === undefined ? undefined : growth("ours")! <= 1.5),
});

printTable("Streaming render", rows, [
  `medians of ${reps} runs per cell, each in its own process; one delta per macrotask (setImmediate)`,
  "a frame is 16.7 ms; 'hidden' = longest wait between a delta's bytes reaching the client and its text in the DOM",
  ...[...failures].map(([key, reason]) => `${key}: ${reason}`),
]);
