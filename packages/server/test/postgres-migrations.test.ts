import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentRuntime, type SessionStore, StoreUnavailable } from "../src/index.js";
import { scriptedModel } from "../src/models/scripted-model.js";
import { migrations } from "../src/store/postgres-schema.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { quiet } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

const postgres = throwawayDatabase("migrations");

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function storeIn(schema: string, url = postgres.url()) {
  const store = postgresStore(url, { schema });
  stores.push(store);
  return store;
}

async function sql(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: postgres.url() });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A schema as an earlier version left it: its first `version` migrations applied (with, at
 * version 3, the jsonb index version 3 built then), and one session: a keyed turn, then
 * `deltas` text deltas, the last holding a NUL where version 3's index would not refuse it.
 */
async function schemaAt(version: number, deltas: number) {
  const s = postgres.schema();
  await sql(`CREATE SCHEMA ${s}`);
  for (const step of migrations(s).slice(0, version)) await sql(step);
  if (version === 3) {
    await sql(`CREATE INDEX events_by_message_key ON ${s}.events (session_id, ((body::jsonb) ->> 'idempotencyKey'))
      WHERE (body::jsonb) ->> 'type' = 'turn.started'`);
  }
  await sql(`CREATE TABLE ${s}.schema_version (version integer NOT NULL)`);
  await sql(`INSERT INTO ${s}.schema_version VALUES ($1)`, [version]);
  const nul = version < 3 ? 1 : 0;
  const record = { sessionId: "s", createdAt: "2026-01-01T00:00:00.000Z", status: "idle", turnId: "t1", step: 1 };
  await sql(
    `INSERT INTO ${s}.sessions VALUES ('s', NULL, $1, $1, 'idle', $2, 0, $3, '{"messages":[],"streaming":[]}')`,
    [record.createdAt, 1 + deltas + nul, JSON.stringify({ ...record, stepOpen: false, approvedTools: [] })],
  );
  const event = (seq: number, fields: object) =>
    JSON.stringify({ sessionId: "s", seq, at: record.createdAt, ...fields });
  await sql(`INSERT INTO ${s}.events VALUES ('s', 1, $1)`, [
    event(1, { type: "turn.started", turnId: "t1", cause: "message", idempotencyKey: "key-1" }),
  ]);
  await sql(
    `INSERT INTO ${s}.events SELECT 's', seq, json_build_object('sessionId', 's', 'seq', seq, 'type', 'text.delta',
       'messageId', 'm', 'delta', 'ab')::text FROM generate_series(2, $1::int + 1) AS seq`,
    [deltas],
  );
  if (nul) {
    await sql(`INSERT INTO ${s}.events VALUES ('s', $1, $2)`, [
      deltas + 2,
      event(deltas + 2, { type: "text.delta", messageId: "m", delta: "a\u0000b" }),
    ]);
  }
  return s;
}

const versionOf = async (schema: string) => (await sql(`SELECT version FROM ${schema}.schema_version`))[0]?.version;

describe.skipIf(!postgresAvailable)("postgresStore's schema versions", () => {
  it("brings a schema at version 2 that holds a NUL in an event up to date, and finds its keyed turns", async () => {
    const schema = await schemaAt(2, 100);
    const store = storeIn(schema);
    expect(await store.findKeyedTurn("s", "key-1")).toBe("t1");
    expect((await store.readEvents("s", 100)).at(-1)).toMatchObject({ delta: "a\u0000b" });
    expect(await versionOf(schema)).toBe(migrations(schema).length);
  });

  it("brings a schema at version 3 up to date: its keyed turns are found on the index built again", async () => {
    const schema = await schemaAt(3, 100);
    const store = storeIn(schema);
    expect(await store.findKeyedTurn("s", "key-1")).toBe("t1");
    expect(await store.findKeyedTurn("s", "key-2")).toBeUndefined();
    expect(await versionOf(schema)).toBe(migrations(schema).length);
    const [index] = await sql(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'events_by_message_key'`,
      [schema],
    );
    expect(index?.indexdef).toContain("event_message_key(body)");
  });

  it("migrates for as long as it takes under a role's statement_timeout, as hosts set one", async () => {
    const schema = await schemaAt(2, 200_000); // an index build of well over 50 ms
    const store = storeIn(schema, `${postgres.url()}?options=-c%20statement_timeout%3D50`);
    expect(await store.findKeyedTurn("s", "key-1")).toBe("t1");
    expect(await versionOf(schema)).toBe(migrations(schema).length);
  }, 60_000);

  it("refuses a schema a newer version migrated, and says how to go back", async () => {
    const schema = await schemaAt(2, 1);
    await sql(`UPDATE ${schema}.schema_version SET version = 99`);
    await expect(storeIn(schema).getSession("s")).rejects.toThrow(
      `postgresStore: schema ${schema} is at version 99, newer than this @hitl-kit/server knows (${migrations(schema).length}): a newer version migrated it. Run that version or a later one; to go back to this one, restore the database from before the migration`,
    );
  });

  it("fails every call on such a schema as a lasting StoreUnavailable with that message (a 503 for each request)", async () => {
    const schema = await schemaAt(2, 1);
    await sql(`UPDATE ${schema}.schema_version SET version = 99`);
    const store = storeIn(schema);
    for (const call of [() => store.getSession("s"), () => store.listSessions(), () => store.write("s", {})]) {
      const refused = await call().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreUnavailable);
      expect(refused).toMatchObject({
        lasting: true,
        message: expect.stringContaining(`postgresStore: schema ${schema} is at version 99, newer than this`),
      });
    }
    const runtime = createAgentRuntime({ model: scriptedModel([]), store, logger: quiet });
    await expect(runtime.ready).rejects.toThrow(StoreUnavailable);
    await runtime.close();
  });
});
