import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentRuntime, type SessionStore, scriptedModel } from "../src/index.js";
import { migrations } from "../src/store/postgres-schema.js";
import { migratePostgresSchema, postgresStore } from "../src/store/postgres-store.js";
import { quiet } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

const postgres = throwawayDatabase("roles");

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** Runs statements as the administrator. */
async function asAdmin(statements: string[]) {
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  try {
    for (const sql of statements) await admin.query(sql);
  } finally {
    await admin.end();
  }
}

let roles = 0;
/** A new login role with no privileges beyond PostgreSQL 15's defaults, and `setup` run as the administrator. */
async function role(setup: (name: string) => string[] = () => []) {
  const name = `app_${++roles}`;
  await asAdmin([`CREATE ROLE ${name} LOGIN`, ...setup(name)]);
  return { name, url: postgres.url().replace("postgres@", `${name}@`) };
}

function storeAs(url: string, schema: string) {
  const store = postgresStore(url, { schema });
  stores.push(store);
  return store;
}

const session = (sessionId: string) => ({
  sessionId,
  createdAt: new Date().toISOString(),
  status: "idle" as const,
  step: 0,
  stepOpen: false,
  approvedTools: [],
});

describe.skipIf(!postgresAvailable)("a role with only the privileges it is given", () => {
  it("works in a schema an administrator made for it, without CREATE on the database", async () => {
    const schema = postgres.schema();
    const { url } = await role((name) => [`CREATE SCHEMA ${schema} AUTHORIZATION ${name}`]);
    const store = storeAs(url, schema);
    await store.createSession(session("s1"));
    expect((await store.getSession("s1"))?.status).toBe("idle");
  });

  it("says what to grant when it may create no schema", async () => {
    const schema = postgres.schema();
    const { name, url } = await role();
    await expect(storeAs(url, schema).getSession("s1")).rejects.toThrow(
      `postgresStore: role ${name} may not set up schema ${schema} (permission denied for database`,
    );
    await expect(storeAs(url, schema).getSession("s1")).rejects.toThrow(
      `Set it up first, as a release step, with a role that may create it: migratePostgresSchema(url, { schema: "${schema}" }) from @hitl-kit/server/postgres, then give role ${name} reads and writes`,
    );
    await expect(storeAs(url, schema).getSession("s1")).rejects.toThrow(
      `Or let role ${name} set it up itself, as an administrator: CREATE SCHEMA ${schema} AUTHORIZATION ${name}; or GRANT CREATE ON DATABASE`,
    );
  });

  it("runs turns as a role that may only read and write, once a release step migrated; says how when behind", async () => {
    const schema = postgres.schema();
    await migratePostgresSchema(postgres.url(), { schema });
    const { name, url } = await role((name) => [
      `GRANT USAGE ON SCHEMA ${schema} TO ${name}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${name}`,
    ]);
    const store = storeAs(url, schema);
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hello." }]), store, logger: quiet });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "hi");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
    ]);
    await runtime.close();

    await asAdmin([`UPDATE ${schema}.schema_version SET version = ${migrations(schema).length - 1}`]);
    await expect(storeAs(url, schema).getSession("s1")).rejects.toThrow(
      `postgresStore: schema ${schema} is at version ${migrations(schema).length - 1} and this @hitl-kit/server needs ${migrations(schema).length}, which role ${name} may not apply (permission denied for schema ${schema}). Apply it first, as a release step, with the role that owns the schema's tables: migratePostgresSchema(url, { schema: "${schema}" })`,
    );
  });

  it("refuses at start, naming what it lacks and the grants, a role that may not read and write all of a migrated schema", async () => {
    const schema = postgres.schema();
    await migratePostgresSchema(postgres.url(), { schema });
    const usageOnly = await role((name) => [`GRANT USAGE ON SCHEMA ${schema} TO ${name}`]);
    await expect(storeAs(usageOnly.url, schema).getSession("s1")).rejects.toThrow(
      `postgresStore: role ${usageOnly.name} may not read schema ${schema} (permission denied for table schema_version). A role that only reads and writes it needs, from an administrator: GRANT USAGE ON SCHEMA ${schema} TO ${usageOnly.name}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${usageOnly.name};`,
    );
    const readOnly = await role((name) => [
      `GRANT USAGE ON SCHEMA ${schema} TO ${name}`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${name}`,
    ]);
    await expect(storeAs(readOnly.url, schema).getSession("s1")).rejects.toThrow(
      `postgresStore: role ${readOnly.name} may not read and write all of schema ${schema}: it lacks rights on events, messages, requests, sessions, tool_calls, transcript, turn_leases. As an administrator: GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${readOnly.name};`,
    );
    // A hardened database that takes EXECUTE from PUBLIC: the functions are named, with their grant.
    // A function of the app's own in the schema is not the store's to check.
    await asAdmin([
      `CREATE FUNCTION ${schema}.my_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
      `REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} FROM PUBLIC`,
    ]);
    const noExecute = await role((name) => [
      `GRANT USAGE ON SCHEMA ${schema} TO ${name}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${name}`,
    ]);
    const refused = await storeAs(noExecute.url, schema)
      .getSession("s1")
      .catch((error: unknown) => error);
    // A grant may come while it runs: not lasting, the start is tried again.
    expect(refused).toMatchObject({
      lasting: false,
      message: expect.stringContaining(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${noExecute.name};`),
    });
    expect((refused as Error).message).toContain(
      "it lacks rights on event_message_key(), lock_session(), parse_json().",
    );
  });

  it("says what to grant when the schema exists and it may not create tables in it", async () => {
    const schema = postgres.schema();
    const { name, url } = await role(() => [`CREATE SCHEMA ${schema}`]);
    await expect(storeAs(url, schema).getSession("s1")).rejects.toThrow(
      `GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${name};`,
    );
  });
});

describe.skipIf(!postgresAvailable)("a read-write role and its release step", () => {
  const readWrite = (schema: string) =>
    role((name) => [
      `GRANT USAGE ON SCHEMA ${schema} TO ${name}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${name}`,
    ]);

  it("starts by itself once the release step has run, when it was started first", async () => {
    const schema = postgres.schema();
    await migratePostgresSchema(postgres.url(), { schema });
    const { url } = await readWrite(schema);
    const behind = migrations(schema).length - 1;
    await asAdmin([`UPDATE ${schema}.schema_version SET version = ${behind}`]);
    const store = storeAs(url, schema);
    const warnings: string[] = [];
    const logger = { warn: (line: string) => warnings.push(line), error: () => {} };
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hello." }]), store, logger });
    await expect(runtime.ready).rejects.toMatchObject({
      lasting: false,
      message: expect.stringContaining("release step"),
    });
    expect((await runtime.health()).status).toBe("starting");

    // The release step: every version's statements are idempotent from the one it says.
    await asAdmin([`UPDATE ${schema}.schema_version SET version = ${migrations(schema).length}`]);
    await expect.poll(async () => (await runtime.health()).status, { timeout: 15_000, interval: 100 }).toBe("serving");
    // The log's last word is that it serves, not the failure.
    expect(warnings.at(-1)).toMatch(/^hitl-kit: started after \d+ failed attempts?; serving\.$/);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "hi");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("idle");
    await runtime.close();
  });

  it("starts on an index left INVALID, which it may not rebuild, and says to run the release step again", async () => {
    const schema = postgres.schema();
    await migratePostgresSchema(postgres.url(), { schema });
    const { name, url } = await readWrite(schema);
    // What a release step cut off mid-build leaves (its connection dropped, a failover).
    const invalid = `UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${schema}.events_by_message_key'::regclass`;
    await asAdmin([invalid]);
    const warnings: string[] = [];
    const logger = { warn: (line: string) => warnings.push(line), error: () => {} };
    const store = storeAs(url, schema);
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hello." }]), store, logger });
    await runtime.ready;
    expect(warnings).toEqual([
      `hitl-kit: postgresStore: index events_by_message_key of schema ${schema} is INVALID (its build was cut off) or an earlier version's, and role ${name}, which does not own the schema's tables, may not build it. The store works without it, only slower: build it by running the release step again with the role that owns them, migratePostgresSchema(url, { schema: "${schema}" }) from @hitl-kit/server/postgres.`,
    ]);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "hi");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("idle");
    await runtime.close();

    // While a build is under way (the release step holds the builders' lock), the index is INVALID too: not "cut off".
    const builder = new pg.Client({ connectionString: postgres.url() });
    await builder.connect();
    await builder.query("SELECT pg_advisory_lock(hashtext($1))", [`hitl-kit index ${schema}`]);
    const during: string[] = [];
    const later = createAgentRuntime({
      model: scriptedModel([{ text: "Hello." }]),
      store: storeAs(url, schema),
      logger: { warn: (line: string) => during.push(line), error: () => {} },
    });
    await later.ready;
    await later.close();
    await builder.end();
    expect(during).toEqual([
      `hitl-kit: postgresStore: index events_by_message_key of schema ${schema} is being built (by the release step, say); the store works without it meanwhile, only slower.`,
    ]);

    // The release step run as this role would leave it so: it fails, saying so.
    await expect(migratePostgresSchema(url, { schema })).rejects.toThrow("may not build it");
    // Run again as the owner, it builds the index anew.
    await migratePostgresSchema(postgres.url(), { schema });
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    const { rows } = await admin.query<{ valid: boolean }>(
      `SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = '${schema}.events_by_message_key'::regclass`,
    );
    await admin.end();
    expect(rows).toEqual([{ valid: true }]);
  });
});

describe.skipIf(!postgresAvailable)("the store's connections in pg_stat_activity", () => {
  const names = async (role: string) => {
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ application_name: string }>(
        "SELECT DISTINCT application_name FROM pg_stat_activity WHERE usename = $1",
        [role],
      );
      return rows.map((row) => row.application_name);
    } finally {
      await admin.end();
    }
  };

  it("stay within poolSize + lockPoolSize + one for LISTEN, however many sessions work at once", async () => {
    const database = new URL(postgres.url()).pathname.slice(1);
    const small = await role((name) => [`GRANT CREATE ON DATABASE ${database} TO ${name}`]);
    const store = postgresStore(small.url, { schema: `small_${roles}`, poolSize: 2, lockPoolSize: 2 });
    stores.push(store);
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hello there." }]), store, logger: quiet });
    await runtime.ready;
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    let most = 0;
    let counting = true;
    // One count at a time, the last awaited before the connection ends.
    const counter = (async () => {
      while (counting) {
        const { rows } = await admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1",
          [small.name],
        );
        most = Math.max(most, rows[0]!.n);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const sessions = await Promise.all(Array.from({ length: 12 }, () => runtime.createSession()));
    await Promise.all(sessions.map(({ sessionId }) => runtime.sendMessage(sessionId, "hi")));
    await runtime.idle();
    counting = false;
    await counter;
    await admin.end();
    for (const { sessionId } of sessions) expect((await runtime.getSnapshot(sessionId)).status).toBe("idle");
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(5);
    await runtime.close();
    expect(() => postgresStore(small.url, { lockPoolSize: 0 })).toThrow(
      "postgresStore: lockPoolSize must be a whole number, 1 or more.",
    );
  });

  it("are named after the instance's host, so each instance's can be told apart; a name in the URL wins", async () => {
    const { hostname } = await import("node:os");
    const database = new URL(postgres.url()).pathname.slice(1);
    const first = await role((name) => [`GRANT CREATE ON DATABASE ${database} TO ${name}`]);
    await storeAs(first.url, `named_${roles}`).listSessions();
    expect(await names(first.name)).toEqual([`hitl-kit@${hostname()}`.slice(0, 63)]);
    const second = await role((name) => [`GRANT CREATE ON DATABASE ${database} TO ${name}`]);
    const url = `${second.url}${second.url.includes("?") ? "&" : "?"}application_name=replica-b`;
    await storeAs(url, `named_${roles}`).listSessions();
    expect(await names(second.name)).toEqual(["replica-b"]);
  });
});
