/**
 * Streaming render in a real browser: Debian's Chromium through Playwright, a page built by
 * Vite in production mode, the same SSE bytes for both sides served from 127.0.0.1. Every
 * variant runs in the same page, interleaved run by run after warm-up runs; each run checks
 * the reply's DOM text. Measures time to the whole text, long tasks, missed frames, React
 * commits and main-thread busy time (Chromium's `TaskDuration`), and prints the targets.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { chromium as playwright } from "playwright";
import { build, defaultClientConditions } from "vite";
import { chromium } from "../chromium.js";
import type { RunResult, RunSpec } from "./render/harness.js";
import { fmtSpread, type Spread, spreadOf } from "./render/spread.js";
import { floor, runIdOf, type StreamShape, type Variant, variants } from "./render/stream-case.js";
import { wireBytes, wireHandler } from "./render/wire-server.js";
import { count, fmt, printGrid, ratio, verdict } from "./table.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** The machine's load when the runs start: a shared machine's other work stretches every task, long tasks most. */
const loadBefore = loadavg()[0]!;

interface BrowserCase {
  name: string;
  label: string;
  shape: StreamShape;
  warmups: number;
  runs: number;
  /** Runs the floor (no client) beside the clients, to show what the browser costs any of them. */
  floor?: boolean;
}
const cases: BrowserCase[] = [
  { name: "burst", label: "20k-delta burst", shape: { deltas: 20_000, rate: 0, history: 0 }, warmups: 2, runs: 10 },
  {
    name: "rate",
    label: "100 deltas/s, 2,000-word reply (20 s)",
    shape: { deltas: 2000, rate: 100, history: 0 },
    warmups: 1,
    runs: 10,
    floor: true,
  },
  {
    name: "history",
    label: "5,000 prior messages + 2k-delta burst",
    shape: { deltas: 2000, rate: 0, history: 5000 },
    warmups: 1,
    runs: 10,
  },
];

// `--only <case>`: run one case (while working on it).
const only = process.argv.indexOf("--only");
if (only !== -1) {
  const name = process.argv[only + 1];
  if (!cases.some((item) => item.name === name))
    throw new Error(`--only needs a case: ${cases.map((item) => item.name).join(", ")}.`);
  cases.splice(0, cases.length, ...cases.filter((item) => item.name === name));
}
// `--runs <n>`: that many runs of each case, after one warm-up (a first look, not a table to publish).
const runsAt = process.argv.indexOf("--runs");
if (runsAt !== -1) {
  const runs = Number(process.argv[runsAt + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs needs a whole number of runs, 1 or more.");
  for (const item of cases) Object.assign(item, { runs, warmups: 1 });
}
// `--quick`: a tenth of each reply, one run and no warm-up: checks the harness, measures nothing.
if (process.argv.includes("--quick")) {
  for (const item of cases) {
    item.shape = { ...item.shape, deltas: item.shape.deltas / 10, history: item.shape.history / 10 };
    item.warmups = 0;
    item.runs = 1;
  }
}

/** One kept run: the page's measures and the main thread's busy time; `rep` pairs the variants' runs of one round. */
type BrowserRun = RunResult & { case: string; variant: Variant; rep: number; busyMs: number };

// The page, as an app ships: Vite's production build.
const outDir = here("results/browser-page");
await build({
  root: here("render/page"),
  mode: "production",
  logLevel: "warn",
  plugins: [react()],
  resolve: {
    conditions: ["@hitl-kit/source", ...defaultClientConditions],
  },
  build: { outDir, emptyOutDir: true },
});

const handle = wireHandler();
const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** Serves the built page, and the wire server's routes through its web-standard handler. */
async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (!url.pathname.startsWith("/api/")) {
    const path = normalize(join(outDir, url.pathname === "/" ? "index.html" : url.pathname));
    if (!path.startsWith(outDir)) return void response.writeHead(403).end();
    const body = await readFile(path).catch(() => undefined);
    if (!body) return void response.writeHead(404).end();
    return void response
      .writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" })
      .end(body);
  }
  const aborted = new AbortController();
  response.on("close", () => aborted.abort());
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  const answer = await handle(
    new Request(url, {
      method: request.method ?? "GET",
      headers,
      signal: aborted.signal,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    }),
  );
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.flushHeaders();
  if (!answer.body) return void response.end();
  const reader = answer.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      response.write(value);
    }
  } catch {
    // the browser went away
  }
  response.end();
}

const server = createServer((request, response) => {
  serve(request, response).catch((error: unknown) => {
    console.error(error);
    response.destroy();
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await playwright.launch({ executablePath: chromium.executablePath, args: chromium.args });
const kept: BrowserRun[] = [];
const started = performance.now();
try {
  let serial = 0;
  for (const item of cases) {
    // A fresh page per case: one case's garbage does not fall on the next.
    const page = await browser.newPage();
    page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
    await page.goto(origin);
    await page.waitForFunction(() => "bench" in window);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    const taskSeconds = async () => {
      const { metrics } = await cdp.send("Performance.getMetrics");
      return metrics.find((metric) => metric.name === "TaskDuration")?.value ?? Number.NaN;
    };
    const clients: Variant[] = item.floor ? [...variants, floor] : [...variants];
    for (let rep = 0; rep < item.warmups + item.runs; rep++) {
      const order = clients.map((_, index) => clients[(index + rep) % clients.length]!);
      for (const variant of order) {
        const spec: RunSpec = { variant, runId: runIdOf(item.shape, `b${serial++}`), base: "" };
        type Bench = { bench: { prepare(spec: RunSpec): Promise<void>; go(): Promise<RunResult>; teardown(): void } };
        await page.evaluate((given) => (window as unknown as Bench).bench.prepare(given), spec);
        await cdp.send("HeapProfiler.collectGarbage");
        const before = await taskSeconds();
        const result = await page.evaluate(() => (window as unknown as Bench).bench.go());
        const after = await taskSeconds();
        await page.evaluate(() => (window as unknown as Bench).bench.teardown());
        if (!result.textOk) throw new Error(`${variant} showed the wrong text in run ${spec.runId}.`);
        if (rep >= item.warmups)
          kept.push({ ...result, case: item.name, variant, rep, busyMs: (after - before) * 1000 });
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
const seconds = (performance.now() - started) / 1000;
// Every run as measured, for whoever wants more than the table's medians.
mkdirSync(here("results"), { recursive: true });
writeFileSync(here("results/streaming-browser-runs.json"), `${JSON.stringify(kept, null, 1)}\n`);

const runsOf = (name: string, variant: Variant) => kept.filter((run) => run.case === name && run.variant === variant);
const spread = (name: string, variant: Variant, pick: (run: BrowserRun) => number): Spread | undefined =>
  spreadOf(runsOf(name, variant).map(pick));
const [ours, throttled, plain] = variants;

/** A row of one measure for every variant, ours ÷ throttle 16, and the target when there is one. */
function row(
  label: string,
  name: string,
  pick: (run: BrowserRun) => number,
  unit: string,
  target?: { text: string; met: (ours: Spread, throttled: Spread, runs: BrowserRun[]) => boolean },
): string[] {
  const [a, b, c, d] = ([ours, throttled, plain, floor] as const).map((variant) => spread(name, variant, pick));
  const met = target && a && b ? target.met(a, b, runsOf(name, ours)) : undefined;
  return [
    label,
    fmtSpread(a, unit),
    fmtSpread(b, unit),
    fmtSpread(c, unit),
    fmtSpread(d, unit),
    ratio(a?.median, b?.median),
    target?.text ?? "—",
    verdict(met),
  ];
}
/** A variant's busy time above the floor's, run by run (each against the floor's run of its round). */
function aboveFloor(name: string, variant: Variant): Spread | undefined {
  const floors = new Map(runsOf(name, floor).map((run) => [run.rep, run.busyMs]));
  return spreadOf(
    runsOf(name, variant).flatMap((run) => (floors.has(run.rep) ? [run.busyMs - floors.get(run.rep)!] : [])),
  );
}
const worstLongTask = (run: BrowserRun) => Math.max(0, ...(run.longTasks ?? [Number.NaN]));
const longTaskCount = (run: BrowserRun) => run.longTasks?.length ?? Number.NaN;
const bytes = wireBytes(20_000);
const caseOf = (name: string) => cases.find((item) => item.name === name)!;

const rows: string[][] = [
  row("20k-delta burst: send → whole text in DOM", "burst", (run) => run.ms, "ms", {
    text: "≤ 0.35× throttle 16",
    met: (a, b) => a.median <= 0.35 * b.median,
  }),
  row("20k-delta burst: longest long task", "burst", worstLongTask, "ms", {
    text: "none > 50 ms, any run",
    met: (_a, _b, runs) => runs.every((run) => run.longTasks !== undefined && run.longTasks.length === 0),
  }),
  row("20k-delta burst: long tasks per run", "burst", longTaskCount, ""),
  [
    "20k-delta burst: runs with a long task",
    ...variants.map((variant) => {
      const runs = runsOf("burst", variant);
      return `${runs.filter((run) => (run.longTasks?.length ?? 0) > 0).length} of ${runs.length}`;
    }),
    "—",
    "—",
    "—",
    "—",
  ],
  row("20k-delta burst: main-thread busy", "burst", (run) => run.busyMs, "ms"),
  row("20k-delta burst: React commits", "burst", (run) => run.commits, ""),
  row("20k-delta burst: frames missed", "burst", (run) => run.missedFrames, ""),
  row("100 deltas/s, 2,000 words: main-thread busy", "rate", (run) => run.busyMs, "ms", {
    text: "≤ 0.5× throttle 16",
    met: (a, b) => a.median <= 0.5 * b.median,
  }),
  (() => {
    const [a, b, c] = [aboveFloor("rate", ours), aboveFloor("rate", throttled), aboveFloor("rate", plain)];
    return [
      "100 deltas/s: busy above no client's",
      fmtSpread(a, "ms"),
      fmtSpread(b, "ms"),
      fmtSpread(c, "ms"),
      "—",
      ratio(a?.median, b?.median),
      "—",
      "—",
    ];
  })(),
  row("100 deltas/s: busy per delta", "rate", (run) => (run.busyMs * 1000) / caseOf("rate").shape.deltas, "µs"),
  row("100 deltas/s: send → whole text", "rate", (run) => run.ms, "ms"),
  row("100 deltas/s: React commits", "rate", (run) => run.commits, ""),
  row("100 deltas/s: most commits in one frame", "rate", (run) => run.maxCommitsPerFrame, "", {
    text: "≤ 1, every run",
    met: (_a, _b, runs) => runs.every((run) => run.maxCommitsPerFrame <= 1),
  }),
  row("100 deltas/s: frames missed", "rate", (run) => run.missedFrames, ""),
  row("100 deltas/s: long tasks per run", "rate", longTaskCount, ""),
  row("5,000 prior messages + 2k-delta burst: whole text", "history", (run) => run.ms, "ms"),
  row("5,000 prior messages: main-thread busy", "history", (run) => run.busyMs, "ms"),
  row("5,000 prior messages: longest long task", "history", worstLongTask, "ms"),
  [
    "wire bytes per text delta (AI SDK: UI message stream)",
    fmt(bytes.hitl, "B"),
    fmt(bytes.aiSdk, "B"),
    fmt(bytes.aiSdk, "B"),
    "—",
    ratio(bytes.hitl, bytes.aiSdk),
    "≤ 1.2× AI SDK",
    verdict(bytes.hitl <= 1.2 * bytes.aiSdk),
  ],
  [
    "wire bytes, whole 20k-delta reply",
    `${count(bytes.hitlTotal)} B`,
    `${count(bytes.aiSdkTotal)} B`,
    `${count(bytes.aiSdkTotal)} B`,
    "—",
    ratio(bytes.hitlTotal, bytes.aiSdkTotal),
    "—",
    "—",
  ],
];

const version = browser.version();
printGrid(
  "Streaming render (Chromium)",
  ["case", "hitl-kit", "useChat throttle 16", "useChat", floor, "hitl-kit ÷ throttle 16", "target", "met?"],
  rows,
  [
    `Chromium ${version} (/usr/bin/chromium, headless), a Vite production build of bench/render/page; the SSE bytes served from 127.0.0.1`,
    `median (p25–p75) of ${cases.map((item) => `${item.runs} runs after ${item.warmups} warm-up for ${item.name}`).join("; ")}; every variant in the same page, interleaved run by run (order rotated); the reply's DOM text checked equal every run`,
    "the 100 deltas/s case streams 2,000 words at 100 deltas/s: 20 s per run, not the 60 s the issue suggests, so that its runs of four variants fit in about fifteen minutes",
    `${floor}: the same stream with no client library — fetch, each event parsed, and once per animation frame the text laid out as <MessageText> does (finished blocks added once, the tail's one text node set); the 100 deltas/s case runs it in the same rounds as the clients: what showing the stream costs the browser whatever the client (${ratio(spread("rate", floor, (run) => run.busyMs)?.median, spread("rate", throttled, (run) => run.busyMs)?.median)} of throttle 16's busy here); "above no client's" subtracts its run of the same round`,
    "busy = Chromium's TaskDuration of the page's main thread (CDP Performance metrics) from send to the whole text; long tasks from PerformanceObserver('longtask'); frames missed = animation-frame gaps beyond one 60 Hz frame",
    "every run's measures are written to bench/results/streaming-browser-runs.json",
    "React's production build on both sides (commits counted through the DevTools hook); hitl-kit renders with <MessageText>, useChat renders each text part in one element, as its docs do; rows memoized on both sides; the text has a blank line every 60 words",
    `${count(kept.length)} runs kept, ${seconds.toFixed(0)} s in all; load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores`,
  ],
);
