/**
 * @hitl-kit/server/postgres: `postgresStore(url)`, the store any number of server instances
 * share: sessions, turn leases and cross-instance events (`LISTEN`/`NOTIFY`) in one
 * PostgreSQL database. Needs `pg` 8.
 * @packageDocumentation
 */
import { randomBytes } from "node:crypto";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import type pg from "pg";
import { stampEvents } from "./apply-batch.js";
import { type Coordination, type LeaseHooks, postgresCoordination } from "./postgres-coordination.js";
import { isUnreachable, reportUnreachable, resilientPool } from "./postgres-errors.js";
import { controlChannel, endNotice, eventsChannel, eventsNotification } from "./postgres-listener.js";
import { checkSessionKept } from "./postgres-pooler.js";
import { projectWrite } from "./postgres-projection.js";
import { readStatements } from "./postgres-read-statements.js";
import { checkSchemaName, migrate, NeedsAnotherRole, type Prepared, prepared } from "./postgres-schema.js";
import { SectionReads, type WriteChange, type WriteRow } from "./postgres-section.js";
import { writeStatements } from "./postgres-write-statements.js";
import {
  emptyProjection,
  messagesTouchedBy,
  type ProjectedMessage,
  type ProjectionState,
  requestIdsOf,
  SNAPSHOT_PAGE,
  snapshotOf,
} from "./project-events.js";
import type {
  RequestRecord,
  SessionRecord,
  SessionStore,
  SessionSummary,
  ToolCallRecord,
  WriteBatch,
  WriteResult,
} from "./records.js";
import { STORE_CALLS } from "./report-store-errors.js";
import { fromRow, type SessionRow, summaryOf } from "./session-row.js";
import { StoreUnavailable } from "./store-unavailable.js";

/**
 * Brings a `postgresStore` schema up to date (creating it when missing) and resolves with the
 * version it was at and the one it is at now; applying nothing when it is current. A store
 * does this itself on start when its role may; call this instead from a release step with a
 * role that may create tables, so the app's own role needs only to read and write them
 * (see "A role that only reads and writes" in docs/deploying.md). Instances may be running:
 * the new versions' indexes are built without blocking their writes.
 * @example
 * const { from, to } = await migratePostgresSchema(process.env.MIGRATION_DATABASE_URL!);
 */
export async function migratePostgresSchema(
  connectionString: string,
  options: { schema?: string } = {},
): Promise<{ from: number; to: number }> {
  const pool = resilientPool({ connectionString, max: 1 });
  try {
    const { from, to, unbuilt } = await migrate(pool, checkSchemaName(options.schema ?? "hitl"));
    if (unbuilt.length > 0) throw new Error(unbuilt.join(" "));
    return { from, to };
  } finally {
    await pool.end();
  }
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The schema the tables live in (default `hitl`, at most 42 characters so the channel and
   * statement names made from it fit PostgreSQL's 63 bytes); created on start. Several apps
   * may share a database.
   */
  schema?: string;
  /**
   * The most connections the store's pool opens for reads and writes (default 10). Each
   * instance also holds one for `LISTEN` and up to `lockPoolSize` that hold session locks.
   */
  poolSize?: number;
  /**
   * The most connections that hold session locks at once (default 16): a turn's step, an
   * answer and a cancel each hold their session's lock for a moment, and work on more
   * sessions than this at once waits for a connection. Lower it for a database with few
   * connections to spare (a small managed tier), at the cost of sessions' work queuing.
   */
  lockPoolSize?: number;
  /**
   * How long an instance's hold on a running turn lasts without a heartbeat (default
   * 10 000 ms), and how often instances look for turns whose lease lapsed: when an instance
   * dies mid-turn, another takes the turn over between two and three times this after its
   * last renewal (a lease seen lapsed is taken at the next look, if it is still as it was).
   */
  leaseMs?: number;
  /** How long an instance holds an expired request it is settling before another may (default 10 000 ms). */
  claimMs?: number;
}

/**
 * The store for several server instances on one PostgreSQL database (driver: `pg`). Each
 * write batch is one transaction that applies only if its session's row is still at the
 * version its guards (`requireOpen`, `requireStatus`, `requireLease`) were checked against,
 * so they hold across processes; the projection is written in the same transaction, and a
 * commit that appended events notifies the instances streaming its session
 * (`NOTIFY` on the session's bucket of 256 channels, with the session and its seqs). The schema is created or migrated on start.
 * Runtimes on this store take turns on a session through advisory locks and a lease per
 * running turn, so exactly one instance drives a turn. Every statement is prepared once per
 * connection.
 * @example
 * const runtime = createAgentRuntime({ model, tools, store: postgresStore(process.env.DATABASE_URL!) });
 */
export function postgresStore(connectionString: string, options: PostgresStoreOptions = {}): SessionStore {
  if (typeof connectionString !== "string" || !/^postgres(ql)?:\/\//.test(connectionString)) {
    throw new TypeError("postgresStore needs a connection string such as postgres://user@host:5432/db.");
  }
  const s = checkSchemaName(options.schema ?? "hitl");
  const { poolSize = 10, lockPoolSize = 16 } = options;
  for (const [name, size] of Object.entries({ poolSize, lockPoolSize })) {
    if (!Number.isInteger(size) || size < 1)
      throw new TypeError(`postgresStore: ${name} must be a whole number, 1 or more.`);
  }
  const pool = resilientPool({ connectionString, max: poolSize });
  // The connection is checked and the schema brought up to date once. An attempt that could not reach the database (it
  // is not up yet, or wakes from a scale to zero) is made again by the next call; so is one
  // this role may not make (a schema not yet migrated by the release step, a grant not yet
  // given), a second later at the soonest, as a StoreUnavailable with its own message. One
  // that reached it and failed otherwise (a schema newer than this code) fails every call, as
  // a lasting one: this instance cannot serve, another may.
  let migration: Promise<void> | undefined;
  // What the migration left undone and the runtime's log is told when it starts (an index this role may not build).
  let unbuilt: string[] = [];
  const ready = () => {
    migration ??= (async () => {
      // Behind a pooler in transaction mode nothing would work for long, and not loudly: said at once.
      await checkSessionKept(connectionString);
      ({ unbuilt } = await migrate(pool, s));
    })().catch((error: unknown) => {
      if (isUnreachable(error)) {
        migration = undefined;
        throw error;
      }
      const another = error instanceof NeedsAnotherRole;
      if (another) setTimeout(() => (migration = undefined), 1_000).unref();
      throw new StoreUnavailable(error, { message: (error as Error).message, lasting: !another });
    });
    return migration;
  };
  // Callers see a failed migration on their first call; nothing is left unhandled meanwhile.
  ready().catch(() => {});
  // Every statement is named, so each connection parses and plans it once (see `prepared`).
  const query = async <R extends pg.QueryResultRow>(statement: Prepared, values?: unknown[]) => {
    await ready();
    return (await pool.query<R>({ ...statement, ...(values ? { values } : {}) })).rows;
  };
  const named = (name: string, text: string) => prepared(s, name, text);
  // This store's tag in its notifications: its coordination knows its own commits are published locally.
  const origin = randomBytes(6).toString("hex");
  // Per session, the last write under way (settled when it and every write before it are
  // done). A session's writes run one after another, in the order they were made: at once,
  // they would race on the row's version, the loser running again in a transaction. The
  // coordination waits on it before it reads events it was notified of.
  const writing = new Map<string, Promise<void>>();
  // Per holder (a coordination of this store), what a write that ends or starts a turn did to its lease.
  const leases = new Map<string, LeaseHooks>();
  const leaseSeconds = (options.leaseMs ?? 10_000) / 1000;
  // What each critical section read with its lock (see postgres-coordination), for the section's own reads.
  const sections = new SectionReads();
  const statements = readStatements(s);
  const { readForWrite, lockRow, writeAll } = writeStatements(s);

  const readEvents = async (sessionId: string, afterSeq: number, limit?: number) =>
    (await query<{ body: string }>(statements.readEvents, [sessionId, afterSeq, limit ?? null])).map(
      (row) => JSON.parse(row.body) as ProtocolEvent,
    );
  const readLastEvent = async (sessionId: string) =>
    (await query<{ body: string }>(statements.lastEvent, [sessionId])).map(
      (row) => JSON.parse(row.body) as ProtocolEvent,
    );

  /**
   * What a write did: `after` when it applied; `lease` when it also gave its turn's lease up
   * (`ended`) or took the lease of the turn it started for a holder, at `sent` (performance.now()).
   */
  type Written = {
    result: WriteResult;
    after?: WriteChange;
    lease?: { holder: string; ended: true } | { holder: string; ended: false; sent: number };
  };

  /** Writes a batch; when it applied, answers what it changed, for the section's read to follow. */
  async function write(sessionId: string, batch: WriteBatch): Promise<Written> {
    await ready();
    return (
      (await attempt(pool, sessionId, batch, "known")) ??
      (await attempt(pool, sessionId, batch, "read")) ??
      inTransaction(async (client) => {
        const written = await attempt(client, sessionId, batch, "locked");
        if (!written) throw new Error(`The write to session ${sessionId} lost its row lock.`);
        return written;
      })
    );
  }

  /**
   * One attempt at a write: `known` takes what it needs from the section's read (when that
   * has it all) instead of reading it; `read` reads it; `locked`, on a transaction's
   * connection, locks the session's row before the read. `undefined` when the row changed
   * after the read (or, not locked, the write would remove an abandoned message, or `known`
   * does not know enough): the caller tries the next way.
   */
  async function attempt(
    client: pg.Pool | pg.PoolClient,
    sessionId: string,
    batch: WriteBatch,
    mode: "known" | "read" | "locked",
  ): Promise<Written | undefined> {
    const locked = mode === "locked";
    const calls = batch.toolCalls ?? [];
    const requests = batch.requests ?? [];
    const transcript = batch.transcript ?? [];
    const touched = messagesTouchedBy(batch.events ?? []);
    // The messages the events touch: named by the events, or by their calls (this batch's or stored ones).
    const ofCalls = new Set(touched.toolCallIds);
    const messageIds = new Set(touched.messageIds);
    for (const call of calls) if (call.messageId && ofCalls.has(call.toolCallId)) messageIds.add(call.messageId);
    let row: WriteRow | undefined;
    // Known, the messages this batch starts that the section does not know are taken to be new:
    // the statement inserts them without upserting, so one that exists fails it, and the write reads.
    let fresh = new Set<string>();
    if (mode === "known") {
      const started = new Set<string>();
      for (const event of batch.events ?? []) if (event.type === "message.started") started.add(event.messageId);
      const known = sections.rowForWrite(sessionId, batch, messageIds, touched.toolCallIds, started);
      if (!known) return undefined;
      ({ row, fresh } = known);
    } else {
      if (locked && (await client.query({ ...lockRow, values: [sessionId] })).rows.length === 0) {
        return { result: { ok: false, reason: "not_found" } };
      }
      const { rows } = await client.query<WriteRow>({
        ...readForWrite,
        values: [sessionId, batch.requireOpen ?? [], [...messageIds], touched.toolCallIds, batch.requireLease ?? null],
      });
      row = rows[0];
    }
    if (!row) return { result: { ok: false, reason: "not_found" } };
    if (!row.leased) return { result: { ok: false, reason: "lease" } };
    if (batch.requireStatus && !batch.requireStatus.includes(row.status)) {
      return { result: { ok: false, reason: "status", status: row.status } };
    }
    if (row.settled) {
      const byId = new Map(row.settled.map((body) => [JSON.parse(body).requestId as string, body]));
      const settled = (batch.requireOpen ?? []).flatMap((id) => {
        const body = byId.get(id);
        return body ? [JSON.parse(body) as RequestRecord] : [];
      });
      return { result: { ok: false, reason: "settled", requests: settled } };
    }
    const at = new Date().toISOString();
    const events = stampEvents(sessionId, row.last_seq, at, batch.events);
    let { status, body } = row;
    if (batch.session) {
      const changed = { ...(JSON.parse(body) as SessionRecord), ...batch.session };
      status = changed.status;
      body = JSON.stringify(changed);
    }
    const change = events.length > 0 ? projectWrite(row, events) : undefined;
    // An abandoned message leaves the projection before the upserts move later ones into its place.
    if (change && change.deleted.length > 0) {
      if (!locked) return undefined;
      await client.query(`DELETE FROM ${s}.messages WHERE session_id = $1 AND message_id = ANY($2)`, [
        sessionId,
        change.deleted,
      ]);
    }
    const upserts = change?.upserts ?? [];
    if ([...fresh].some((id) => !upserts.some((entry) => entry.message.id === id))) return undefined;
    // The write that ends its turn (the session waits or is idle) gives the turn's lease up. The
    // write that starts a turn (a message, or the last answer the turn waited for) takes it for
    // this store's instance, which drives the turn next, when the store serves one instance.
    const endsTurn =
      batch.requireLease !== undefined && (batch.session?.status === "waiting" || batch.session?.status === "idle");
    const [taker] = leases.size === 1 ? leases.keys() : [];
    const startsTurn =
      batch.requireLease === undefined &&
      (batch.session?.status === "running" || batch.session?.status === "resuming") &&
      (row.status === "waiting" || row.status === "idle");
    const takes = startsTurn && taker !== undefined ? taker : null;
    const sent = performance.now();
    const lastSeq = row.last_seq + events.length;
    const bodies = events.map((event) => JSON.stringify(event));
    const transcriptLength = row.transcript_len + transcript.length;
    const statement = client.query<{ version: string | null; took: boolean }>({
      ...writeAll,
      values: [
        sessionId,
        events.map((event) => event.seq),
        bodies,
        transcript.map((_, index) => row.transcript_len + index),
        transcript.map((message) => JSON.stringify(message)),
        calls.map((call) => call.toolCallId),
        calls.map((call) => call.turnId),
        calls.map((call) => call.step),
        calls.map((call) => call.messageId ?? null),
        calls.map((call) => JSON.stringify(call)),
        requests.map((request) => request.requestId),
        requests.map((request) => request.state),
        requests.map((request) => request.expiresAt ?? null),
        requests.map((request) => JSON.stringify(request)),
        upserts.map((entry) => entry.index),
        upserts.map((entry) => entry.message.id),
        upserts.map((entry) => JSON.stringify(entry.message)),
        status,
        body,
        lastSeq,
        at,
        transcriptLength,
        change?.projection ?? row.projection,
        // Delivered once the transaction commits, and only then (with the events when they are small).
        events.length > 0 ? eventsNotification(sessionId, events[0]!.seq, lastSeq, origin, bodies) : null,
        eventsChannel(s, sessionId),
        row.version,
        // Locked, the read checked the lease with the row locked, as every write of the session waits for it.
        locked ? null : (batch.requireLease ?? null),
        endsTurn ? batch.requireLease : null,
        upserts.map((entry) => fresh.has(entry.message.id)),
        takes,
        leaseSeconds,
      ],
    });
    let wrote: { version: string | null; took: boolean } | undefined;
    try {
      [wrote] = (await statement).rows;
    } catch (error) {
      // A message taken to be new exists: the section did not know it.
      if (mode === "known" && (error as { code?: string }).code === "23505") return undefined;
      throw error;
    }
    if (!wrote?.version) {
      // Known, the section's read is behind the row: it is not used for a write again.
      if (mode === "known") sections.behind(sessionId);
      return undefined;
    }
    return {
      result: { ok: true, events },
      ...(endsTurn ? { lease: { holder: batch.requireLease!, ended: true as const } } : {}),
      ...(takes && wrote.took ? { lease: { holder: takes, ended: false as const, sent } } : {}),
      after: {
        basedOn: row.version,
        version: wrote.version,
        row: { body, last_seq: lastSeq, owner: row.owner, updated_at: at, transcript_len: transcriptLength },
        projection: change?.projection ?? row.projection,
        upserts: upserts.map(({ index, message }) => ({ index, message })),
        deleted: change?.deleted ?? [],
        streaming: change ? change.streaming : "unchanged",
      },
    };
  }

  const inTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    await ready();
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };

  /** Runs a change to the session that is not a batch: a section's read, when it is not the caller's, may miss it. */
  const fromOutside = async <T>(sessionId: string, change: () => Promise<T>): Promise<T> => {
    sections.outside(sessionId);
    try {
      return await change();
    } finally {
      sections.outside(sessionId);
    }
  };

  const store: SessionStore & { coordinate(): Coordination } = {
    async createSession({ owner, ...session }) {
      const { sessionId, createdAt, status } = session;
      await fromOutside(sessionId, () =>
        query(
          named(
            "create_session",
            `INSERT INTO ${s}.sessions (session_id, owner, created_at, updated_at, status, last_seq, transcript_len, body, projection)
         VALUES ($1, $2, $3, $3, $4, 0, 0, $5, $6)`,
          ),
          [sessionId, owner ?? null, createdAt, status, JSON.stringify(session), JSON.stringify(emptyProjection)],
        ).catch((error: { code?: string }) => {
          if (error.code === "23505") throw new Error(`Session ${sessionId} exists already.`);
          throw error;
        }),
      );
    },
    async getSession(sessionId) {
      const locked = sections.session(sessionId);
      if (locked !== undefined) return locked === null ? undefined : fromRow(locked);
      const [row] = await query<SessionRow>(statements.session, [sessionId]);
      return row && fromRow(row);
    },
    async listSessions({ owner, limit = 50, after } = {}) {
      // Every ISO time sorts before "~", so without a cursor the list starts at the newest.
      const cursor = after ? [after.createdAt, after.sessionId] : ["~", ""];
      const rows =
        owner === undefined
          ? await query<SessionRow & { pending: number }>(statements.sessionsAfter, [...cursor, limit])
          : await query<SessionRow & { pending: number }>(statements.ownerSessionsAfter, [...cursor, limit, owner]);
      return rows.map((row): SessionSummary => summaryOf(row));
    },
    async countSessions(owner) {
      const [row] = await query<{ count: number }>(statements.countSessions, [owner]);
      return row?.count ?? 0;
    },
    async deleteSession(sessionId) {
      sections.forget(sessionId);
      return fromOutside(sessionId, () =>
        inTransaction(async (client) => {
          for (const table of ["events", "transcript", "tool_calls", "requests", "messages", "turn_leases"]) {
            await client.query(`DELETE FROM ${s}.${table} WHERE session_id = $1`, [sessionId]);
          }
          const { rowCount } = await client.query(`DELETE FROM ${s}.sessions WHERE session_id = $1`, [sessionId]);
          // Every instance ends the session's streams at the commit, whoever deleted it: a runtime,
          // or an admin job on a bare store (an erasure), which no runtime hears of otherwise.
          if (rowCount) {
            await client.query("SELECT pg_notify($1, $2)", [controlChannel(s), endNotice(sessionId)]);
          }
          return (rowCount ?? 0) > 0;
        }),
      );
    },
    async listIdleSessions(updatedBefore, limit = 100) {
      const rows = await query<{ session_id: string }>(
        named(
          "idle_sessions",
          `SELECT session_id FROM ${s}.sessions WHERE updated_at < $1 ORDER BY updated_at LIMIT $2`,
        ),
        [updatedBefore, limit],
      );
      return rows.map((row) => row.session_id);
    },
    readEvents,
    async readSnapshot(sessionId, { before = 2 ** 31 - 1, limit = SNAPSHOT_PAGE } = {}) {
      // The projection's state and the page (newest first, one more than asked) in one round trip.
      const [row] = await query<{ last_seq: number; projection: string; page: [number, string][] | null }>(
        statements.snapshot,
        [sessionId, Math.min(before, 2 ** 31 - 1), limit + 1],
      );
      if (!row) return undefined;
      const state = JSON.parse(row.projection) as ProjectionState;
      const rows = row.page ?? [];
      const page: ProjectedMessage[] = rows
        .slice(0, limit)
        .reverse()
        .map(([index, body]) => ({ index, message: JSON.parse(body) }));
      const ids = requestIdsOf(page);
      const settled =
        ids.length === 0
          ? []
          : (await query<{ body: string }>(statements.requests, [sessionId, ids])).map(
              (request) => JSON.parse(request.body) as RequestRecord,
            );
      return snapshotOf(sessionId, row.last_seq, state, page, rows.length > limit, settled);
    },
    async streamingMessageIds(sessionId) {
      const locked = sections.streaming(sessionId);
      if (locked) return locked;
      const [row] = await query<{ projection: string }>(statements.projection, [sessionId]);
      return row ? (JSON.parse(row.projection) as ProjectionState).streaming : [];
    },
    async readTranscript(sessionId, from = 0) {
      const rows = await query<{ message: string }>(statements.transcript, [sessionId, from]);
      return rows.map((row) => JSON.parse(row.message) as LanguageModelV4Message);
    },
    async getToolCalls(sessionId, turnId, step) {
      const locked = sections.toolCalls(sessionId, turnId, step);
      if (locked) return locked;
      const rows = await query<{ body: string }>(statements.toolCalls, [sessionId, turnId, step]);
      return rows.map((row) => JSON.parse(row.body) as ToolCallRecord);
    },
    async getRequest(sessionId, requestId) {
      const open = sections.openRequest(sessionId, requestId);
      if (open) return open;
      const [row] = await query<{ body: string }>(statements.request, [sessionId, requestId]);
      return row && (JSON.parse(row.body) as RequestRecord);
    },
    async getOpenRequests(sessionId) {
      const locked = sections.openRequests(sessionId);
      if (locked) return locked;
      const rows = await query<{ body: string }>(statements.openRequests, [sessionId]);
      return rows.map((row) => JSON.parse(row.body) as RequestRecord);
    },
    async findKeyedTurn(sessionId, key) {
      const [row] = await query<{ turn_id: string }>(statements.keyedTurn, [sessionId, key]);
      return row?.turn_id;
    },
    async listSessionsToRecover() {
      // A turn another instance holds a live lease on is that instance's, not a leftover.
      const rows = await query<{ session_id: string }>(
        named(
          "to_recover",
          `SELECT session_id FROM ${s}.sessions WHERE status IN ('running', 'resuming') AND NOT EXISTS (
             SELECT 1 FROM ${s}.turn_leases WHERE turn_leases.session_id = sessions.session_id AND expires_at > now())`,
        ),
      );
      return rows.map((row) => row.session_id);
    },
    async listExpiredRequests(now, limit = 100) {
      // Each due request is claimed by one instance for a while (`claimMs`), so instances
      // sweeping at once share the work instead of all settling the same requests.
      const rows = await query<{ session_id: string; request_id: string }>(
        named(
          "claim_expired",
          `UPDATE ${s}.requests SET claimed_until = $3 WHERE (session_id, request_id) IN (
             SELECT session_id, request_id FROM ${s}.requests
             WHERE state = 'open' AND expires_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $4)
             ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING session_id, request_id, expires_at`,
        ),
        [now, limit, Date.now() + (options.claimMs ?? 10_000), Date.now()],
      );
      return rows.map((row) => ({ sessionId: row.session_id, requestId: row.request_id }));
    },
    async nextExpiry() {
      const [row] = await query<{ next: string | null }>(
        named(
          "next_expiry",
          `SELECT MIN(expires_at) AS next FROM ${s}.requests WHERE state = 'open' AND expires_at IS NOT NULL`,
        ),
      );
      return row?.next == null ? undefined : Number(row.next);
    },
    async write(sessionId, batch) {
      sections.outside(sessionId);
      const before = writing.get(sessionId);
      const written = before ? before.then(() => write(sessionId, batch)) : write(sessionId, batch);
      const done = written.then(
        () => {},
        () => {},
      );
      writing.set(sessionId, done);
      try {
        const { result, after, lease } = await written;
        if (after) sections.wrote(sessionId, batch, after);
        else sections.forget(sessionId);
        if (lease?.ended) leases.get(lease.holder)?.ended(sessionId);
        else if (lease) leases.get(lease.holder)?.taken(sessionId, lease.sent);
        return result;
      } catch (error) {
        sections.forget(sessionId);
        throw error;
      } finally {
        sections.outside(sessionId);
        if (writing.get(sessionId) === done) writing.delete(sessionId);
      }
    },
    coordinate({ logger } = { logger: console }) {
      return postgresCoordination({
        pool,
        async ready() {
          await ready();
          for (const note of unbuilt.splice(0)) logger.warn(`hitl-kit: ${note}`);
        },
        connectionString,
        schema: s,
        readEvents,
        readLastEvent,
        sections,
        origin,
        writesInFlight: (sessionId) => {
          const last = writing.get(sessionId);
          return last ? [last] : [];
        },
        leases,
        leaseMs: options.leaseMs ?? 10_000,
        lockPoolSize,
      });
    },
    async close() {
      await migration?.catch(() => {});
      await pool.end();
    },
  };
  // What reaches the database reports a database it cannot reach as `StoreUnavailable`, and a pooler in transaction mode by name.
  return reportUnreachable(store, STORE_CALLS);
}
