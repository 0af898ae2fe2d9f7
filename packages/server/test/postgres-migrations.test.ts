import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentRuntime, createFetchHandler, type SessionStore, StoreUnavailable } from "../src/index.js";
import { scriptedModel } from "../src/models/scripted-model.js";
import { indexBuilds } from "../src/store/postgres-index-builds.js";
import { migrations } from "../src/store/postgres-schema.js";
import { migratePostgresSchema, postgresStore } from "../src/store/postgres-store.js";
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

/** Whether the schema's keyed-message index is there, and valid (`undefined`: not there). */
const keyIndexValid = async (schema: string): Promise<boolean | undefined> =>
  (
    await sql(
      `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'events_by_message_key'`,
      [schema],
    )
  )[0]?.valid;

/** A connection of its own (an instance's, or an administrator's), with its backend's pid. */
async function connection() {
  const client = new pg.Client({ connectionString: postgres.url() });
  await client.connect();
  const pid: number = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  return { client, pid };
}

/** Whether the backend waits for a lock (a table's, a transaction's) right now. */
const waitsForLock = async (pid: number) =>
  (await sql("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]))[0]?.wait_event_type === "Lock";

/** Whether a statement building the keyed-message index waits for a lock (for the transactions writing the events). */
const indexBuildWaits = async () =>
  (
    await sql(
      `SELECT 1 FROM pg_stat_activity WHERE query LIKE '%INDEX%events_by_message_key%' AND wait_event_type = 'Lock'
         AND pid <> pg_backend_pid()`,
    )
  ).length > 0;

/** One event of session `s` written at `seq`, as an instance writes one. */
const eventRow = (schema: string, seq: number) =>
  `INSERT INTO ${schema}.events VALUES ('s', ${seq}, '{"type":"text.delta","messageId":"m","delta":"x"}')`;

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
    // The migration lifts the limit for its own statements. The store's other statements run
    // under 50 ms, which a loaded runner can exceed (a CI run on Node 22 did, reading after the
    // migration): such a timeout is a 503, and the call is made again, as a client would.
    const timedOut = Symbol("timed out");
    let read: string | undefined | typeof timedOut = timedOut;
    for (let attempt = 1; read === timedOut; attempt++) {
      read = await store.findKeyedTurn("s", "key-1").catch((error: { cause?: { code?: string } }) => {
        if (attempt < 20 && error.cause?.code === "57014") return timedOut;
        throw error;
      });
    }
    expect(read).toBe("t1");
    expect(await versionOf(schema)).toBe(migrations(schema).length);
  }, 60_000);

  it("builds version 4's index on the events while other instances write events, once though two instances start together", async () => {
    const schema = await schemaAt(2, 1_000);
    // An instance writing events when the new ones start: its transaction is open.
    const writing = await connection();
    const other = await connection();
    try {
      await writing.client.query("BEGIN");
      await writing.client.query(eventRow(schema, 5_001));
      const starts = [storeIn(schema), storeIn(schema)].map((store) => store.findKeyedTurn("s", "key-1"));
      let started = false;
      void Promise.all(starts).then(() => {
        started = true;
      });
      // The build waits for that transaction to end, as a concurrent build does...
      await vi.waitFor(async () => expect(await indexBuildWaits()).toBe(true), { timeout: 20_000, interval: 25 });
      // ...while another instance's write of an event goes through rather than queueing behind it.
      let written = false;
      const write = other.client.query(eventRow(schema, 5_002)).then(() => {
        written = true;
      });
      await vi.waitFor(async () => expect(written || (await waitsForLock(other.pid))).toBe(true), {
        timeout: 20_000,
        interval: 25,
      });
      expect(written).toBe(true);
      await write;
      expect(started).toBe(false);
      await writing.client.query("COMMIT");
      expect(await Promise.all(starts)).toEqual(["t1", "t1"]);
      expect(await keyIndexValid(schema)).toBe(true);
      expect(await versionOf(schema)).toBe(migrations(schema).length);
      expect(await sql(`SELECT count(*)::int AS n FROM ${schema}.events`)).toEqual([{ n: 1_004 }]);
    } finally {
      await writing.client.query("ROLLBACK").catch(() => {});
      await Promise.all([writing.client.end(), other.client.end()]);
    }
  }, 60_000);

  it("drops and builds again an INVALID index that an interrupted build left, at the next start", async () => {
    const schema = await schemaAt(2, 100);
    const first = postgresStore(postgres.url(), { schema });
    expect(await first.findKeyedTurn("s", "key-1")).toBe("t1");
    await first.close();
    // A build interrupted while it waited for a transaction writing the events (its instance stopped).
    await sql(`DROP INDEX ${schema}.events_by_message_key`);
    const writing = await connection();
    const building = await connection();
    try {
      await writing.client.query("BEGIN");
      await writing.client.query(eventRow(schema, 5_001));
      const [keyIndex] = indexBuilds(schema);
      const build = building.client
        .query(`CREATE INDEX CONCURRENTLY ${keyIndex!.name} ${keyIndex!.on}`)
        .catch((error: unknown) => error);
      await vi.waitFor(async () => expect(await waitsForLock(building.pid)).toBe(true), {
        timeout: 20_000,
        interval: 25,
      });
      await sql("SELECT pg_cancel_backend($1)", [building.pid]);
      expect(await build).toMatchObject({ code: "57014" });
      await writing.client.query("COMMIT");
    } finally {
      await writing.client.query("ROLLBACK").catch(() => {});
      await Promise.all([writing.client.end(), building.client.end()]);
    }
    expect(await keyIndexValid(schema)).toBe(false);

    const store = storeIn(schema);
    expect(await store.findKeyedTurn("s", "key-1")).toBe("t1");
    expect(await keyIndexValid(schema)).toBe(true);
  }, 60_000);

  it("migrates from a release step (migratePostgresSchema), then applies nothing at the next", async () => {
    const schema = await schemaAt(3, 1);
    expect(await migratePostgresSchema(postgres.url(), { schema })).toEqual({ from: 3, to: migrations(schema).length });
    expect(await migratePostgresSchema(postgres.url(), { schema })).toEqual({
      from: migrations(schema).length,
      to: migrations(schema).length,
    });
    expect(await keyIndexValid(schema)).toBe(true);
    expect(await storeIn(schema).findKeyedTurn("s", "key-1")).toBe("t1");
    const fresh = postgres.schema();
    expect(await migratePostgresSchema(postgres.url(), { schema: fresh })).toEqual({
      from: 0,
      to: migrations(fresh).length,
    });
  });

  it("refuses a schema holding tables of its names that it did not make, or another tool's schema_version", async () => {
    const shared = postgres.schema();
    await sql(
      `CREATE SCHEMA ${shared}; CREATE TABLE ${shared}.sessions (id integer); CREATE TABLE ${shared}.events (id integer)`,
    );
    await expect(storeIn(shared).getSession("s")).rejects.toThrow(
      `postgresStore: schema ${shared} already has events, sessions, which hitl-kit did not make (the schema has no hitl-kit schema_version). Give hitl-kit a schema of its own with the schema option (the default is hitl)`,
    );
    const flyway = postgres.schema();
    await sql(`CREATE SCHEMA ${flyway}; CREATE TABLE ${flyway}.schema_version (version integer, script text)`);
    await sql(`INSERT INTO ${flyway}.schema_version VALUES (42, 'V42__init.sql')`);
    await expect(storeIn(flyway).getSession("s")).rejects.toThrow(
      `postgresStore: schema ${flyway} has a table schema_version that is not hitl-kit's (version integer, script text; 0 rows)`,
    );
    expect(
      await sql(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = ANY($1)`, [[shared, flyway]]),
    ).toEqual([{ n: 3 }]);
  });

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
    // Not tried again: a startup probe can fail fast rather than wait on "starting".
    expect(await runtime.health()).toEqual({ ok: false, status: "failed" });
    // Not "cannot reach": the store answers, and this instance cannot use it however often asked.
    const handler = createFetchHandler(runtime, { identify: () => "ada", logger: quiet });
    const reply = await handler(new Request("http://127.0.0.1/api/agent/sessions"));
    expect(reply.status).toBe(503);
    expect((await reply.json()).error.message).toBe(
      "This server cannot use its session store (its log says why); send the request again, for another instance to answer it.",
    );
    await runtime.close();
  });
});
