/**
 * The benchmark runtime (fixture.ts) served over HTTP in a process of its own, so the load
 * a benchmark makes runs in another process, as real clients would. Prints its protocol
 * base URL on stdout; SIGTERM stops it. With HITL_BENCH_DATABASE_URL (and HITL_BENCH_SCHEMA)
 * it runs on the Postgres store, as one of several instances on that database.
 */
import { serve } from "@hitl-kit/server";
import { startRuntime } from "./fixture.js";

const databaseUrl = process.env.HITL_BENCH_DATABASE_URL;
const schema = process.env.HITL_BENCH_SCHEMA;
const bench = startRuntime({ ...(databaseUrl ? { databaseUrl } : {}), ...(schema ? { schema } : {}) });
await bench.runtime.ready;
const served = await serve(bench.handler, { port: 0, host: "127.0.0.1" });
process.stdout.write(`${served.url}/api/agent\n`);
process.once("SIGTERM", async () => {
  await served.close();
  await bench.close();
  process.exit(0);
});
