/**
 * Server: respond → `tool.result` latency and settled responses per second with 100
 * parked sessions, beside a bare Node HTTP round trip on loopback; RSS growth with 10,000
 * parked sessions and with 1,000 open SSE streams. Each case runs in its own process.
 */
import { fileURLToPath } from "node:url";
import { type ChildResult, runNodeJson } from "./child.js";
import { measureFloor, measureLatency } from "./server/latency.js";
import { measureParkedMemory } from "./server/parked-memory.js";
import { measureStreamMemory } from "./server/stream-memory.js";
import { fmt, printTable, type Row, ratio, verdict } from "./table.js";

const cases = {
  latency: async () => ({ floor: await measureFloor(), ours: await measureLatency() }),
  parked: () => measureParkedMemory(),
  streams: () => measureStreamMemory(),
};
type CaseName = keyof typeof cases;
type Results = { [Name in CaseName]: Awaited<ReturnType<(typeof cases)[Name]>> };

const chosen = process.argv[2] as CaseName | undefined;
if (chosen) {
  console.log(JSON.stringify(await cases[chosen]()));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const run = <Name extends CaseName>(name: Name, timeoutMs: number) =>
  runNodeJson<Results[Name]>([...process.execArgv, "--expose-gc", self, name], timeoutMs);
const latency = await run("latency", 35_000);
const parked = await run("parked", 45_000);
const streams = await run("streams", 35_000);

const value = <T>(result: ChildResult<T>): T | undefined => (result.ok ? result.value : undefined);
const rows: Row[] = [];
const timing = value(latency);
for (const [label, key] of [
  ["p50", "p50"],
  ["p99", "p99"],
] as const) {
  rows.push({
    case: `respond → tool.result ${label}, 100 parked (anchor: bare HTTP round trip)`,
    ours: fmt(timing?.ours[key], "ms"),
    anchor: fmt(timing?.floor[key], "ms"),
    ratio: ratio(timing?.ours[key], timing?.floor[key]),
    target: "—",
    met: "—",
  });
}
rows.push({
  case: "settled responses per second, 100 at once (anchor: bare HTTP)",
  ours: fmt(timing?.ours.settledPerSecond, "/s"),
  anchor: fmt(timing?.floor.settledPerSecond, "/s"),
  ratio: ratio(timing?.ours.settledPerSecond, timing?.floor.settledPerSecond),
  target: "—",
  met: "—",
});
const memory = value(parked);
rows.push({
  case: "RSS growth, 10,000 parked sessions (anchor: RSS before)",
  ours: fmt(memory?.growth, "MiB"),
  anchor: fmt(memory?.before, "MiB"),
  ratio: "—",
  target: "≤ 50 MB",
  met: verdict(memory ? memory.growth * 1.048576 <= 50 : undefined),
});
const open = value(streams);
rows.push({
  case: "RSS growth, 1,000 open SSE streams, idle (anchor: RSS before)",
  ours: fmt(open?.openGrowth, "MiB"),
  anchor: fmt(open?.before, "MiB"),
  ratio: "—",
  target: "≤ 100 MB",
  met: verdict(open ? open.openGrowth * 1.048576 <= 100 : undefined),
});
rows.push({
  case: "RSS growth, peak while every stream gets a turn",
  ours: fmt(open?.growth, "MiB"),
  anchor: fmt(open?.before, "MiB"),
  ratio: "—",
  target: "≤ 100 MB",
  met: verdict(open ? open.growth * 1.048576 <= 100 : undefined),
});
rows.push({
  case: "dropped events over 1,000 streams",
  ours: open ? `${open.dropped} of ${open.expected.toLocaleString("en-US")}` : "—",
  anchor: "—",
  ratio: "—",
  target: "0",
  met: verdict(open ? open.dropped === 0 : undefined),
});

const failed = Object.entries({ latency, parked, streams }).flatMap(([name, result]) =>
  result.ok ? [] : [`${name}: ${result.reason}`],
);
printTable("Server", rows, [
  "SQLite store on a temp file, scripted model that parks on a client tool at every step; HTTP on 127.0.0.1",
  `10,000 sessions parked in ${fmt(memory?.seconds, "s")}; heap growth ${fmt(memory?.heapGrowth, "MiB")} (the rest is SQLite's page cache and allocator slack)`,
  ...failed,
]);
