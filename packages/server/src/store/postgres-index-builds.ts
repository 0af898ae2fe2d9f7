import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";

/**
 * An index on a table that grows with use, built with `CREATE INDEX CONCURRENTLY` once the
 * schema is at the version that wants it, rather than in the migration's transaction: a plain
 * `CREATE INDEX` holds every write to the table (every instance's events) for the whole build.
 */
interface IndexBuild {
  /** The schema version from which the index is wanted. */
  since: number;
  name: string;
  /** What follows `CREATE INDEX CONCURRENTLY <name>`. */
  on: string;
  /** What `pg_get_indexdef` shows of this index and not of an earlier index of the same name. */
  shows: string;
}

/** The indexes built outside the migrations' transaction. Indexes of tables a migration creates are built with them. */
export function indexBuilds(s: string): IndexBuild[] {
  return [
    // The turn each keyed message started, found by its key however old it is (see `parseJsonFunctions`).
    // Version 3 built one of this name on jsonb, which version 4 replaces.
    {
      since: 4,
      name: "events_by_message_key",
      on: `ON ${s}.events (session_id, ${s}.event_message_key(body)) WHERE ${s}.event_message_key(body) IS NOT NULL`,
      shows: "event_message_key(body)",
    },
  ];
}

/**
 * Builds the indexes the schema at `version` wants and lacks, without blocking writes: each with
 * `CREATE INDEX CONCURRENTLY`, which waits for the transactions writing the table to end but
 * lets new writes in meanwhile. An index an interrupted build left (INVALID: an instance
 * stopped or lost its connection mid-build), or an earlier version's index of the same name,
 * is dropped (concurrently too) and built again. Instances take turns on an advisory lock of
 * their own, so one builds and the others wait, then find the index built. Resolves once every
 * index is built and valid, or, for a role that may not build them, with what it left unbuilt.
 */
export async function buildIndexes(pool: pg.Pool, schema: string, version: number): Promise<string[]> {
  const wanted = indexBuilds(schema).filter((index) => index.since <= version);
  const missing = await unbuilt(pool, schema, wanted);
  if (missing.length === 0) return [];
  // Only the tables' owner may build their indexes. Without one of them the store is as
  // correct, only slower: a role that only reads and writes starts, and says what to run.
  const { rows } = await pool.query<{ role: string; owns: boolean }>(
    `SELECT current_user AS role, pg_has_role(c.relowner, 'USAGE') AS owns FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'events'`,
    [schema],
  );
  if (rows[0] && !rows[0].owns) {
    // A build under way (the release step's) holds the builders' lock: an index it has not finished is INVALID too.
    const building = !(await lockIsFree(pool, `hitl-kit index ${schema}`));
    return missing.map(({ index, found }) =>
      building
        ? `postgresStore: index ${index.name} of schema ${schema} is being built (by the release step, say); the store works without it meanwhile, only slower.`
        : `postgresStore: index ${index.name} of schema ${schema} is ${found ? "INVALID (its build was cut off) or an earlier version's" : "missing"}, and role ${rows[0]!.role}, which does not own the schema's tables, may not build it. The store works without it, only slower: build it by running the release step again with the role that owns them, migratePostgresSchema(url, { schema: "${schema}" }) from @hitl-kit/server/postgres.`,
    );
  }
  const client = await pool.connect();
  try {
    // Session settings, not a transaction's: a concurrent build cannot run in one. The
    // connection is closed afterwards, so they (and the lock) go with it.
    await client.query("SET statement_timeout = 0; SET lock_timeout = 0");
    await takeLock(client, `hitl-kit index ${schema}`);
    for (const { index, found } of await unbuilt(client, schema, wanted)) {
      if (found) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${schema}.${index.name}`);
      await client.query(`CREATE INDEX CONCURRENTLY ${index.name} ${index.on}`);
    }
  } finally {
    client.release(true);
  }
  return [];
}

/** The wanted indexes that are missing, INVALID, or an earlier version's (`found`: one of that name is there to drop). */
async function unbuilt(
  db: pg.Pool | pg.PoolClient,
  schema: string,
  wanted: IndexBuild[],
): Promise<{ index: IndexBuild; found: boolean }[]> {
  if (wanted.length === 0) return [];
  const { rows } = await db.query<{ name: string; valid: boolean; definition: string }>(
    `SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = ANY($2)`,
    [schema, wanted.map((index) => index.name)],
  );
  return wanted.flatMap((index) => {
    const row = rows.find((found) => found.name === index.name);
    return row?.valid && row.definition.includes(index.shows) ? [] : [{ index, found: row !== undefined }];
  });
}

/**
 * Takes a session-level advisory lock, asking again until it is free. It does not wait in
 * `pg_advisory_lock`: a statement waiting there holds a snapshot, and the holder's concurrent
 * build waits for every older snapshot to go, which would be a deadlock.
 */
async function takeLock(client: pg.PoolClient, key: string): Promise<void> {
  for (let wait = 25; ; wait = Math.min(1_000, wait * 2)) {
    const { rows } = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock(hashtext($1)) AS taken", [
      key,
    ]);
    if (rows[0]?.taken) return;
    await sleep(wait);
  }
}

/** Whether no session holds the advisory lock `key`: taken and given back at once, on one connection. */
async function lockIsFree(pool: pg.Pool, key: string): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock(hashtext($1)) AS taken", [
      key,
    ]);
    if (rows[0]?.taken) await client.query("SELECT pg_advisory_unlock(hashtext($1))", [key]);
    return rows[0]?.taken ?? false;
  } finally {
    client.release();
  }
}
