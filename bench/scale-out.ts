/**
 * Scale-out: respond → `tool.result` on the stream (p50 / p99) and answers per second at 1,
 * 10 and 50 sessions answering in a closed loop, on SQLite (one process), Postgres with one
 * instance, and Postgres with three instances on one database: each session kept on one
 * instance, as a balancer routing by session would, and each session streaming from one
 * instance and answering through another. Postgres is a throwaway PostgreSQL 15 cluster
 * on loopback, started here; without its binaries the Postgres rows say why they are empty.
 */
import { fileURLToPath } from "node:url";
import { type PostgresCluster, postgresAvailable, startPostgres } from "../packages/server/test/postgres-cluster.js";
import { type ChildResult, runNodeJson } from "./child.js";
import { type AnswerRate, type AnswerRateSetup, measureAnswerRate, warmUpAnswers } from "./server/answer-rate.js";
import { fmt, printTable, type Row, verdict } from "./table.js";

const concurrencies = [1, 10, 50];

const chosen = process.argv[2];
if (chosen) {
  const setup = JSON.parse(chosen) as AnswerRateSetup & { concurrency: number };
  console.log(JSON.stringify(await measureAnswerRate(setup.concurrency, setup)));
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const measure = (setup: AnswerRateSetup & { concurrency: number }) =>
  runNodeJson<AnswerRate>([...process.execArgv, self, JSON.stringify(setup)], 120_000);

type Store = "SQLite" | "Postgres, 1 instance" | "Postgres, 3 instances, sticky" | "Postgres, 3 instances, crossed";
const results = new Map<Store, ChildResult<AnswerRate>[]>();
for (const concurrency of concurrencies) {
  results.set("SQLite", [...(results.get("SQLite") ?? []), await measure({ concurrency })]);
}

let cluster: PostgresCluster | undefined;
let problem: string | undefined;
if (postgresAvailable) {
  try {
    // Durable as SQLite's `synchronous = NORMAL`: the WAL is written at commit and flushed
    // in the background, so a crash of the database loses at most its last few commits.
    cluster = await startPostgres({ fsync: "on", full_page_writes: "on", synchronous_commit: "off" });
    let run = 0;
    for (const [store, instances, routing] of [
      ["Postgres, 1 instance", 1, "sticky"],
      ["Postgres, 3 instances, sticky", 3, "sticky"],
      ["Postgres, 3 instances, crossed", 3, "crossed"],
    ] as const) {
      for (const concurrency of concurrencies) {
        const env = { HITL_BENCH_DATABASE_URL: cluster.url, HITL_BENCH_SCHEMA: `bench_${++run}` };
        const setup = { concurrency, instances, routing, env, databasePort: cluster.port };
        results.set(store, [...(results.get(store) ?? []), await measure(setup)]);
      }
    }
  } catch (error) {
    problem = `Postgres: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await cluster?.stop();
  }
} else problem = "Postgres: no PostgreSQL binaries here (apt-get install postgresql)";

const value = (result: ChildResult<AnswerRate> | undefined) => (result?.ok ? result.value : undefined);
const rows: Row[] = [];
for (const [store, list] of results) {
  const postgres = store !== "SQLite";
  list.forEach((result, index) => {
    const rate = value(result);
    const concurrency = concurrencies[index]!;
    const one = value(results.get("Postgres, 1 instance")?.[index]);
    const more = store.startsWith("Postgres, 3 instances") && concurrency > 1;
    rows.push({
      case: `${store}: answers per second, ${concurrency} session${concurrency === 1 ? "" : "s"} (spread)`,
      ours: rate
        ? `${fmt(rate.perSecond, "/s")} (${fmt(rate.perSecondSpread[0])}–${fmt(rate.perSecondSpread[1])})`
        : "—",
      anchor: more ? `${fmt(one?.perSecond, "/s")} (1 instance)` : "—",
      ratio: more && rate && one ? `${(rate.perSecond / one.perSecond).toFixed(2)}×` : "—",
      target: more ? "> 1 instance" : "—",
      met: more ? verdict(rate && one ? rate.perSecond > one.perSecond : undefined) : "—",
    });
    rows.push({
      case: `${store}: respond → tool.result p50 / p99, ${concurrency} at once`,
      ours: rate ? `${fmt(rate.p50, "ms")} / ${fmt(rate.p99, "ms")}` : result.ok ? "—" : `— (${result.reason})`,
      anchor: "—",
      ratio: "—",
      // The latency of one answer on loopback: with 10 or 50 at once, p50 is the queue (SQLite's too).
      target: postgres && concurrency === 1 ? "p50 ≤ 5 ms" : "—",
      met: postgres && concurrency === 1 ? verdict(rate ? rate.p50 <= 5 : undefined) : "—",
    });
    if (postgres) {
      rows.push({
        case: `${store}: CPU per answer, ${concurrency} at once: instances + PostgreSQL`,
        ours: rate ? `${fmt(rate.serverCpuMs, "ms")} + ${fmt(rate.databaseCpuMs, "ms")}` : "—",
        anchor: "—",
        ratio: "—",
        target: "—",
        met: "—",
      });
    }
  });
}
const warmUps = [...results.values()].flat().flatMap((result) => (result.ok ? [result.value.warmUpSeconds] : []));
printTable("Scale-out", rows, [
  `each row: the server in its own process(es), the clients in this one, HTTP and SSE on 127.0.0.1; a warm-up until every instance that answers has answered ${warmUpAnswers.toLocaleString("en")} times (${fmt(Math.min(...warmUps), "s")}–${fmt(Math.max(...warmUps), "s")}: each instance optimizes its code on as much work as one alone), then ten 1 s windows (median, spread)`,
  "three instances, sticky: each session streams from and answers through one instance, as a balancer routing by session would (each commit notifies its session's channel, one of 256, which the other two listen to only when a session they stream hashes to it)",
  "three instances, crossed: each session streams from one instance and answers through the next, so every result reaches its stream through NOTIFY (with its events, all small here)",
  "PostgreSQL 15 on loopback, fsync on, synchronous_commit off (as durable as SQLite's synchronous = NORMAL); all processes share this machine's cores",
  ...(problem ? [problem] : []),
]);
