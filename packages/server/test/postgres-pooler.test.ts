import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { createAgentRuntime, scriptedModel } from "../src/index.js";
import { reportUnreachable } from "../src/store/postgres-errors.js";
import { NOTIFIED_WITHIN_MS } from "../src/store/postgres-pooler.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { checkOneResultPerCall, quiet } from "./harness.js";
import { type Pgbouncer, pgbouncerAvailable, startPgbouncer } from "./pgbouncer.js";
import { type PostgresCluster, postgresAvailable, startPostgres } from "./postgres-cluster.js";
import { pickTemplate } from "./tools.js";

// A cluster with a PgBouncer in each pooling mode in front of it.
let cluster: PostgresCluster | undefined;
let direct = "";
const poolers: Partial<Record<"session" | "transaction", Pgbouncer>> = {};
let schemas = 0;
const runnable = postgresAvailable && pgbouncerAvailable;
beforeAll(async () => {
  if (!postgresAvailable) return;
  cluster = await startPostgres();
  direct = await cluster.createDatabase();
  if (!pgbouncerAvailable) return;
  poolers.session = await startPgbouncer(cluster, "session");
  poolers.transaction = await startPgbouncer(cluster, "transaction");
}, 60_000);
afterAll(async () => {
  poolers.session?.stop();
  poolers.transaction?.stop();
  await cluster?.stop();
}, 60_000);

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };
const until = (check: () => Promise<unknown>) => vi.waitFor(check, { timeout: 15_000, interval: 50 });

/** A store and runtime on `url` (the schema `schema`, or a fresh one), closed when the test ends; not awaited. */
function instance(url: string, schema = `pooled_${++schemas}`) {
  const store = postgresStore(url, { schema, poolSize: 4 });
  const runtime = createAgentRuntime({
    model: scriptedModel([{ toolCalls: [pick] }, { text: "Done." }]),
    tools: [pickTemplate],
    logger: process.env.HITL_DEBUG ? console : quiet,
    store,
  });
  onTestFinished(async () => {
    await runtime.close();
    await store.close();
  });
  return { store, runtime, schema };
}

const pooler = /looks like a connection pooler in transaction mode .*use the direct URL/s;

describe.skipIf(!runnable)("a Postgres store behind a connection pooler", () => {
  it("fails at ready, naming the pooler and the fix, behind PgBouncer in transaction mode", async () => {
    const { runtime } = instance(poolers.transaction!.via(direct));
    await expect(runtime.ready).rejects.toThrow(pooler);
  }, 30_000);

  it("fails the store's first call at once, naming the pooler and the fix, behind PgBouncer in transaction mode", async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const store = postgresStore(poolers.transaction!.via(direct), { schema: `pooled_${++schemas}` });
      onTestFinished(() => store.close());
      const started = performance.now();
      await expect(store.getSession("ses_none")).rejects.toThrow(pooler);
      // Told by the connection's own session, before any notification could have been waited for.
      expect(performance.now() - started).toBeLessThan(NOTIFIED_WITHIN_MS);
    }
  }, 30_000);

  it("works behind PgBouncer in session mode: a parked turn is answered, and another instance's events reach a stream", async () => {
    const url = poolers.session!.via(direct);
    const { runtime, store, schema } = instance(url);
    await runtime.ready;
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("waiting"));
    const [request] = await store.getOpenRequests(sessionId);
    await runtime.respond(sessionId, [{ requestId: request!.requestId, action: "accept", value: { templateId: "a" } }]);
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    expect(checkOneResultPerCall(await store.readEvents(sessionId, 0))).toEqual([]);

    const other = instance(url, schema);
    await other.runtime.ready;
    const { sessionId: elsewhere } = await other.runtime.createSession();
    const streamed: string[] = [];
    const unsubscribe = runtime.subscribe(elsewhere, (event) => streamed.push(event.type));
    onTestFinished(unsubscribe);
    await other.runtime.sendMessage(elsewhere, "go");
    await until(async () => expect(streamed).toContain("input.requested"));
  }, 30_000);
});

describe.skipIf(!postgresAvailable)("a named statement gone astray", () => {
  it("is reported as a pooler in transaction mode, whether prepared twice or not at all on the connection", async () => {
    const client = new pg.Client({ connectionString: direct });
    await client.connect();
    onTestFinished(() => client.end());
    const calls = reportUnreachable(
      {
        prepareTwice: async () => {
          await client.query("PREPARE pooled_twice AS SELECT 1");
          await client.query("PREPARE pooled_twice AS SELECT 1");
        },
        runMissing: () => client.query("EXECUTE pooled_missing"),
      },
      ["prepareTwice", "runMissing"],
    );
    await expect(calls.prepareTwice()).rejects.toThrow(
      /prepared statement "pooled_twice" already exists; .*use the direct URL/s,
    );
    await expect(calls.runMissing()).rejects.toThrow(
      /prepared statement "pooled_missing" does not exist; .*use the direct URL/s,
    );
  });
});
