import type pg from "pg";
import { buildIndexes } from "./postgres-index-builds.js";
import { lockSessionFunction } from "./postgres-section.js";

/** A schema name safe to put in SQL unquoted: lower-case letters, digits and `_`. */
const schemaShape = /^[a-z_][a-z0-9_]*$/;

/**
 * The longest schema name. The names derived from it must fit PostgreSQL's 63 bytes: a
 * longer channel makes `pg_notify` fail, and longer statement names are cut short, so
 * `<schema>_release_lease` and `<schema>_release_leases` would collide. The longest are
 * `<schema>_owner_sessions_after` (42 + 21 bytes) and `<schema>_events_255` (42 + 11).
 */
export const LONGEST_SCHEMA = 42;

/** Checks a schema name given in options; the message names the fix. */
export function checkSchemaName(schema: string): string {
  if (typeof schema !== "string" || !schemaShape.test(schema) || schema.length > LONGEST_SCHEMA) {
    throw new TypeError(
      `postgresStore: schema "${schema}" must be lower-case letters, digits and _ (at most ${LONGEST_SCHEMA}, so the names made from it fit PostgreSQL's 63 bytes), starting with a letter or _.`,
    );
  }
  return schema;
}

/**
 * The schema's versions, applied in order to a database that has not had them, all in one
 * transaction. The version table counts the ones applied. Text columns that order lists
 * use the "C" collation, so ISO times and ids sort by their bytes whatever the database's locale.
 * An index on a table that exists already, which may be large, is not built here but after
 * the transaction, without blocking writes (`indexBuilds`).
 */
export function migrations(s: string): string[] {
  return [
    `CREATE TABLE ${s}.sessions (
       session_id text COLLATE "C" PRIMARY KEY, owner text COLLATE "C", created_at text COLLATE "C" NOT NULL,
       updated_at text COLLATE "C" NOT NULL, status text NOT NULL, last_seq integer NOT NULL,
       transcript_len integer NOT NULL, body text NOT NULL, projection text NOT NULL);
     CREATE INDEX sessions_active ON ${s}.sessions (status) WHERE status IN ('running', 'resuming');
     CREATE INDEX sessions_by_owner ON ${s}.sessions (owner, created_at, session_id);
     CREATE INDEX sessions_by_created ON ${s}.sessions (created_at, session_id);
     CREATE INDEX sessions_by_activity ON ${s}.sessions (updated_at);
     CREATE TABLE ${s}.events (
       session_id text NOT NULL, seq integer NOT NULL, body text NOT NULL, PRIMARY KEY (session_id, seq));
     CREATE TABLE ${s}.transcript (
       session_id text NOT NULL, idx integer NOT NULL, message text NOT NULL, PRIMARY KEY (session_id, idx));
     CREATE TABLE ${s}.tool_calls (
       session_id text NOT NULL, tool_call_id text NOT NULL, turn_id text NOT NULL, step integer NOT NULL,
       message_id text, body text NOT NULL, PRIMARY KEY (session_id, tool_call_id));
     CREATE INDEX tool_calls_by_step ON ${s}.tool_calls (session_id, turn_id, step);
     CREATE TABLE ${s}.requests (
       session_id text NOT NULL, request_id text NOT NULL, state text NOT NULL, expires_at bigint,
       claimed_until bigint, body text NOT NULL, PRIMARY KEY (session_id, request_id));
     CREATE INDEX requests_open ON ${s}.requests (session_id) WHERE state = 'open';
     CREATE INDEX requests_expiry ON ${s}.requests (expires_at) WHERE state = 'open' AND expires_at IS NOT NULL;
     CREATE TABLE ${s}.messages (
       session_id text NOT NULL, idx integer NOT NULL, message_id text NOT NULL, body text NOT NULL,
       PRIMARY KEY (session_id, idx), UNIQUE (session_id, message_id));
     CREATE TABLE ${s}.turn_leases (
       session_id text PRIMARY KEY, holder text NOT NULL, token bigint NOT NULL, expires_at timestamptz NOT NULL);`,
    lockSessionFunction(s),
    // Version 3 built the keyed-message index on jsonb, which refuses a NUL anywhere in an
    // event, so a database holding one could not be brought past version 2. Version 4 builds
    // it on parse_json; a database not yet at 3 goes straight there.
    "SELECT NULL",
    // The turn each keyed message started, found by its key however old it is; any string
    // stored is read in SQL (see `parseJsonFunctions`). Its index on the events is built after
    // the transaction, without blocking writes (see `indexBuilds`). The lock function again,
    // for databases whose version 2 made an older one.
    `${parseJsonFunctions(s)};
     ${lockSessionFunction(s)}`,
  ];
}

/**
 * The functions that read stored JSON in SQL. Rows hold `JSON.stringify`'s text, which
 * writes a NUL as `\u0000` and half a surrogate pair (a string cut inside an emoji, say)
 * as `\ud83d`. PostgreSQL's `json` type takes both, but its operators (`->`, `->>`) and
 * `jsonb` refuse them wherever they are in the text. The rows keep them as written;
 * `parse_json` reads each such escape as U+FFFD, which changes no field the SQL reads
 * (ids, keys, numbers). Text with no `\u` in it, nearly every row, is parsed as it is.
 */
function parseJsonFunctions(s: string): string {
  return `CREATE FUNCTION ${s}.parse_json(body text) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
       SELECT (CASE WHEN strpos(body, '\\u') = 0 THEN body
         ELSE regexp_replace(body, '\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\\\\ufffd', 'g') END)::json
     $fn$;
     CREATE FUNCTION ${s}.event_message_key(body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
       SELECT CASE WHEN strpos(body, '"turn.started"') > 0 THEN (SELECT j ->> 'idempotencyKey'
         FROM (SELECT ${s}.parse_json(body) AS j) p WHERE j ->> 'type' = 'turn.started') END
     $fn$`;
}

/** The tables the store keeps in its schema, besides `schema_version`. */
export const TABLES = ["sessions", "events", "transcript", "tool_calls", "requests", "messages", "turn_leases"];
/** The store's functions (what else the schema holds is not the store's to check). */
const FUNCTIONS = ["lock_session", "parse_json", "event_message_key"];

/**
 * Brings the schema up to date. A schema already at this version is only looked at (no lock,
 * no DDL), so a role that may only read and write its tables starts. Otherwise instances
 * starting at once take turns on an advisory lock, so each version is applied once; then the
 * indexes the version wants on tables that may be large are built without blocking other
 * instances' writes (`buildIndexes`), again once. Returns the version found and the one now,
 * and what says why an index is left unbuilt (a role that may not build it).
 */
export async function migrate(pool: pg.Pool, schema: string): Promise<{ from: number; to: number; unbuilt: string[] }> {
  const from = await migrateTables(pool, schema);
  const to = migrations(schema).length;
  const unbuilt = await buildIndexes(pool, schema, to);
  await checkPrivileges(pool, schema);
  return { from, to, unbuilt };
}

/**
 * What the store's role may not do and another role must first (migrate the schema as a
 * release step, grant the rights): a store that meets it tries again, for it may be done meanwhile.
 */
export class NeedsAnotherRole extends Error {
  override readonly name = "NeedsAnotherRole";
}

/**
 * Refuses, at start rather than at its first write, a role that may not read and write every
 * table of the schema or run its functions (a grant forgotten after a migration that added a
 * table, `EXECUTE` revoked from `PUBLIC`): the error names what it lacks and the grants.
 */
async function checkPrivileges(pool: pg.Pool, schema: string): Promise<void> {
  const { rows } = await pool.query<{ name: string; role: string }>(
    `SELECT c.relname AS name, current_user AS role FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = ANY($2) AND NOT (has_table_privilege(c.oid, 'SELECT')
        AND has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') AND has_table_privilege(c.oid, 'DELETE'))
     UNION ALL
     SELECT p.proname || '()', current_user FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND p.proname = ANY($3) AND NOT has_function_privilege(p.oid, 'EXECUTE')
     ORDER BY 1`,
    [schema, TABLES, FUNCTIONS],
  );
  if (rows.length === 0) return;
  const role = rows[0]!.role;
  const functions = rows.some((row) => row.name.endsWith("()"));
  throw new NeedsAnotherRole(
    `postgresStore: role ${role} may not read and write all of schema ${schema}: it lacks rights on ${rows.map((row) => row.name).join(", ")}. As an administrator: GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role};${functions ? ` GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${role};` : ""}`,
  );
}

/** Applies the versions the schema has not had, in one transaction under the migration lock; returns the version it was at. */
async function migrateTables(pool: pg.Pool, schema: string): Promise<number> {
  const all = migrations(schema);
  const client = await pool.connect();
  let existed = false;
  let applied: number | undefined;
  let began = false;
  try {
    existed = (await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rowCount !== 0;
    applied = existed ? await versionOf(client, schema) : undefined;
    if (applied === all.length) return applied;
    await client.query("BEGIN");
    began = true;
    // A host's statement_timeout would cancel a long index build, and each try after it too,
    // or the wait while another instance migrates.
    await client.query("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`hitl-kit migrate ${schema}`]);
    // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists: a
    // role allowed only a schema made for it would be refused.
    existed = (await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rowCount !== 0;
    if (!existed) await client.query(`CREATE SCHEMA ${schema}`);
    applied = existed ? await versionOf(client, schema) : undefined;
    if (applied === undefined) {
      await refuseOthersTables(client, schema);
      await client.query(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL)`);
    }
    const from = applied ?? 0;
    if (from > all.length) {
      throw new Error(
        `postgresStore: schema ${schema} is at version ${from}, newer than this @hitl-kit/server knows (${all.length}): a newer version migrated it. Run that version or a later one; to go back to this one, restore the database from before the migration (see "Upgrades" in docs/deploying.md).`,
      );
    }
    for (const sql of all.slice(from)) await client.query(sql);
    if (applied === undefined) await client.query(`INSERT INTO ${schema}.schema_version VALUES ($1)`, [all.length]);
    else await client.query(`UPDATE ${schema}.schema_version SET version = $1`, [all.length]);
    await client.query("COMMIT");
    return from;
  } catch (error) {
    if (began) await client.query("ROLLBACK").catch(() => {});
    throw (error as { code?: unknown }).code === "42501"
      ? await notAllowed(client, schema, { existed, began, applied, wanted: all.length }, error)
      : error;
  } finally {
    client.release();
  }
}

/**
 * The version a schema's `schema_version` table says it is at, or `undefined` when it has no
 * such table yet. A table of that name that is not hitl-kit's (another tool's version table,
 * in a schema shared with it) is refused rather than read as a version.
 */
async function versionOf(client: pg.PoolClient, schema: string): Promise<number | undefined> {
  const { rows: columns } = await client.query<{ name: string; type: string }>(
    // From the catalog, which any role reads: a role without USAGE on the schema learns
    // whether there is a version to read before it is refused reading it.
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = 'schema_version' AND a.attnum > 0 AND NOT a.attisdropped`,
    [schema],
  );
  if (columns.length === 0) return undefined;
  const ours = columns.length === 1 && columns[0]!.name === "version" && columns[0]!.type === "integer";
  const { rows } = ours
    ? await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`)
    : { rows: [] };
  if (!ours || rows.length > 1) {
    throw new Error(
      `postgresStore: schema ${schema} has a table schema_version that is not hitl-kit's (${columns.map((column) => `${column.name} ${column.type}`).join(", ")}; ${rows.length} rows). Give hitl-kit a schema of its own with the schema option (the default is hitl).`,
    );
  }
  return rows[0]?.version ?? 0;
}

/** Refuses to set up in a schema that already holds a table of one of the store's names, which hitl-kit did not make. */
async function refuseOthersTables(client: pg.PoolClient, schema: string): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = ANY($2) ORDER BY 1`,
    [schema, TABLES],
  );
  if (rows.length === 0) return;
  throw new Error(
    `postgresStore: schema ${schema} already has ${rows.map((row) => row.name).join(", ")}, which hitl-kit did not make (the schema has no hitl-kit schema_version). Give hitl-kit a schema of its own with the schema option (the default is hitl); it keeps ${TABLES.join(", ")} and schema_version there.`,
  );
}

/**
 * A refused privilege at start, as an error that says what to grant, or how to migrate with
 * another role: looking at a schema (the role may not read it), bringing one that is behind up
 * to date (a read-write role, whose release step has not migrated yet), or setting one up.
 */
async function notAllowed(
  client: pg.PoolClient,
  schema: string,
  at: { existed: boolean; began: boolean; applied: number | undefined; wanted: number },
  cause: unknown,
): Promise<NeedsAnotherRole> {
  const { rows } = await client
    .query<{ role: string; db: string }>("SELECT current_user AS role, current_database() AS db")
    .catch(() => ({ rows: [{ role: "<role>", db: "<database>" }] }));
  const { role, db } = rows[0]!;
  const why = (cause as Error).message;
  const guide = `(see "A role that only reads and writes" in docs/deploying.md)`;
  let message: string;
  if (at.existed && !at.began) {
    message = `postgresStore: role ${role} may not read schema ${schema} (${why}). A role that only reads and writes it needs, from an administrator: GRANT USAGE ON SCHEMA ${schema} TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}; ${guide}.`;
  } else if (at.applied !== undefined) {
    message = `postgresStore: schema ${schema} is at version ${at.applied} and this @hitl-kit/server needs ${at.wanted}, which role ${role} may not apply (${why}). Apply it first, as a release step, with the role that owns the schema's tables: migratePostgresSchema(url, { schema: "${schema}" }) from @hitl-kit/server/postgres ${guide}.`;
  } else {
    const fix = at.existed
      ? `GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role};`
      : `CREATE SCHEMA ${schema} AUTHORIZATION ${role}; or GRANT CREATE ON DATABASE ${db} TO ${role};`;
    message = `postgresStore: role ${role} may not set up schema ${schema} (${why}). Set it up first, as a release step, with a role that may create it: migratePostgresSchema(url, { schema: "${schema}" }) from @hitl-kit/server/postgres, then give role ${role} reads and writes ${guide}. Or let role ${role} set it up itself, as an administrator: ${fix}`;
  }
  return new NeedsAnotherRole(message, { cause });
}

/** A named statement: `pg` parses and plans it once per connection, then only binds and runs it. */
export interface Prepared {
  name: string;
  text: string;
}

/** The statement `text` named `<schema>_<name>`; a name stays with one text, as `pg` requires per connection. */
export function prepared(schema: string, name: string, text: string): Prepared {
  return { name: `${schema}_${name}`, text };
}
