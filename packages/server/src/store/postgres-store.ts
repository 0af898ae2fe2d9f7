import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import pg from "pg";
import { stampEvents } from "./apply-batch.js";
import { type Coordination, postgresCoordination } from "./postgres-coordination.js";
import { checkSchemaName, migrate } from "./postgres-schema.js";
import {
  emptyProjection,
  messagesTouchedBy,
  type ProjectedMessage,
  type ProjectionState,
  projectEvents,
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

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** The schema the tables live in (default `hitl`); created on start. Several apps may share a database. */
  schema?: string;
  /** The most connections the store's pool opens (default 10). Each instance also holds one for `LISTEN`. */
  poolSize?: number;
  /**
   * How long an instance's hold on a running turn lasts without a heartbeat (default
   * 10 000 ms). When an instance dies mid-turn, another takes the turn over after this.
   */
  leaseMs?: number;
  /** How long an instance holds an expired request it is settling before another may (default 10 000 ms). */
  claimMs?: number;
}

type SessionRow = {
  body: string;
  last_seq: number;
  owner: string | null;
  updated_at: string;
  transcript_len: number;
};

/**
 * The store for several server instances on one PostgreSQL database (driver: `pg`). Each
 * write batch is one transaction that locks its session's row first, so the batch's guards
 * (`requireOpen`, `requireStatus`) hold across processes; the projection is written in the
 * same transaction, and a commit that appended events notifies the other instances
 * (`NOTIFY` with the session and its seqs). The schema is created or migrated on start.
 * Runtimes on this store take turns on a session through advisory locks and a lease per
 * running turn, so exactly one instance drives a turn.
 * @example
 * const runtime = createAgentRuntime({ model, tools, store: postgresStore(process.env.DATABASE_URL!) });
 */
export function postgresStore(connectionString: string, options: PostgresStoreOptions = {}): SessionStore {
  if (typeof connectionString !== "string" || !/^postgres(ql)?:\/\//.test(connectionString)) {
    throw new TypeError("postgresStore needs a connection string such as postgres://user@host:5432/db.");
  }
  const s = checkSchemaName(options.schema ?? "hitl");
  const channel = `${s}_events`;
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
  // An idle client that loses its connection emits here; the pool replaces it.
  pool.on("error", () => {});
  const ready = migrate(pool, s);
  // Callers see a failed migration on their first call; nothing is left unhandled meanwhile.
  ready.catch(() => {});
  const query = async <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => {
    await ready;
    return (await pool.query<R>(sql, values)).rows;
  };
  const sessionColumns = "body, last_seq, owner, updated_at, transcript_len";
  const sessionsAfter = (owner: boolean) =>
    `SELECT ${sessionColumns} FROM ${s}.sessions WHERE ${owner ? "owner = $4 AND " : ""}(created_at, session_id) < ($1, $2)
     ORDER BY created_at DESC, session_id DESC LIMIT $3`;

  const readEvents = async (sessionId: string, afterSeq: number, limit?: number) =>
    (
      await query<{ body: string }>(
        `SELECT body FROM ${s}.events WHERE session_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3`,
        [sessionId, afterSeq, limit ?? null],
      )
    ).map((row) => JSON.parse(row.body) as ProtocolEvent);

  async function write(client: pg.PoolClient, sessionId: string, batch: WriteBatch): Promise<WriteResult> {
    const run = async <R extends pg.QueryResultRow>(sql: string, values: unknown[]) =>
      (await client.query<R>(sql, values)).rows;
    // The row lock makes this batch's guards and writes one step for every process.
    const [row] = await run<{
      status: SessionRecord["status"];
      body: string;
      last_seq: number;
      transcript_len: number;
      projection: string;
    }>(
      `SELECT status, body, last_seq, transcript_len, projection FROM ${s}.sessions WHERE session_id = $1 FOR UPDATE`,
      [sessionId],
    );
    if (!row) return { ok: false, reason: "not_found" };
    if (batch.requireStatus && !batch.requireStatus.includes(row.status)) {
      return { ok: false, reason: "status", status: row.status };
    }
    if (batch.requireOpen && batch.requireOpen.length > 0) {
      const settled = await run<{ body: string }>(
        `SELECT body FROM ${s}.requests WHERE session_id = $1 AND request_id = ANY($2) AND state <> 'open'`,
        [sessionId, batch.requireOpen],
      );
      if (settled.length > 0) {
        const byId = new Map(settled.map((found) => [JSON.parse(found.body).requestId as string, found.body]));
        const requests = batch.requireOpen.flatMap((id) => {
          const body = byId.get(id);
          return body ? [JSON.parse(body) as RequestRecord] : [];
        });
        return { ok: false, reason: "settled", requests };
      }
    }
    const at = new Date().toISOString();
    const events = stampEvents(sessionId, row.last_seq, at, batch.events);
    if (events.length > 0) {
      await run(`INSERT INTO ${s}.events (session_id, seq, body) SELECT $1, * FROM unnest($2::int[], $3::text[])`, [
        sessionId,
        events.map((event) => event.seq),
        events.map((event) => JSON.stringify(event)),
      ]);
    }
    let { status, body } = row;
    if (batch.session) {
      const changed = { ...(JSON.parse(body) as SessionRecord), ...batch.session };
      status = changed.status;
      body = JSON.stringify(changed);
    }
    const transcript = batch.transcript ?? [];
    if (transcript.length > 0) {
      await run(
        `INSERT INTO ${s}.transcript (session_id, idx, message) SELECT $1, * FROM unnest($2::int[], $3::text[])`,
        [
          sessionId,
          transcript.map((_, index) => row.transcript_len + index),
          transcript.map((message) => JSON.stringify(message)),
        ],
      );
    }
    const calls = batch.toolCalls ?? [];
    if (calls.length > 0) {
      await run(
        `INSERT INTO ${s}.tool_calls (session_id, tool_call_id, turn_id, step, message_id, body)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
         ON CONFLICT (session_id, tool_call_id) DO UPDATE SET turn_id = excluded.turn_id, step = excluded.step,
           message_id = excluded.message_id, body = excluded.body`,
        [
          sessionId,
          calls.map((call) => call.toolCallId),
          calls.map((call) => call.turnId),
          calls.map((call) => call.step),
          calls.map((call) => call.messageId ?? null),
          calls.map((call) => JSON.stringify(call)),
        ],
      );
    }
    const requests = batch.requests ?? [];
    if (requests.length > 0) {
      await run(
        `INSERT INTO ${s}.requests (session_id, request_id, state, expires_at, body)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[])
         ON CONFLICT (session_id, request_id) DO UPDATE SET state = excluded.state,
           expires_at = excluded.expires_at, claimed_until = NULL, body = excluded.body`,
        [
          sessionId,
          requests.map((request) => request.requestId),
          requests.map((request) => request.state),
          requests.map((request) => request.expiresAt ?? null),
          requests.map((request) => JSON.stringify(request)),
        ],
      );
    }
    const projection =
      events.length > 0
        ? ((await project(client, sessionId, row.projection, events)) ?? row.projection)
        : row.projection;
    const lastSeq = row.last_seq + events.length;
    await run(
      `UPDATE ${s}.sessions SET status = $2, body = $3, last_seq = $4, updated_at = $5, transcript_len = $6, projection = $7
       WHERE session_id = $1`,
      [sessionId, status, body, lastSeq, at, row.transcript_len + transcript.length, projection],
    );
    if (events.length > 0) {
      // Delivered once the transaction commits, and only then: other instances read the events from the log.
      await run("SELECT pg_notify($1, $2)", [channel, JSON.stringify([sessionId, events[0]!.seq, lastSeq])]);
    }
    return { ok: true, events };
  }

  /**
   * Applies a batch's events to the session's projection: writes the messages they touch,
   * and answers the projection's new state (JSON), or `undefined` when it did not change.
   */
  async function project(
    client: pg.PoolClient,
    sessionId: string,
    stored: string,
    events: ProtocolEvent[],
  ): Promise<string | undefined> {
    // Deltas (most writes) change only their message: the state is neither read nor written.
    const deltas = events.every((e) => e.type === "text.delta" || e.type === "reasoning.delta");
    const state = deltas ? emptyProjection : (JSON.parse(stored) as ProjectionState);
    const { messageIds, toolCallIds } = messagesTouchedBy(events);
    const ids = new Set(messageIds);
    if (toolCallIds.length > 0) {
      const { rows } = await client.query<{ tool_call_id: string; message_id: string | null }>(
        `SELECT tool_call_id, message_id FROM ${s}.tool_calls WHERE session_id = $1 AND tool_call_id = ANY($2)`,
        [sessionId, toolCallIds],
      );
      const byCall = new Map(rows.map((found) => [found.tool_call_id, found.message_id]));
      for (const id of toolCallIds) {
        const messageId = byCall.get(id);
        if (messageId) ids.add(messageId);
      }
    }
    const { rows } =
      ids.size === 0
        ? { rows: [] }
        : await client.query<{ idx: number; message_id: string; body: string }>(
            `SELECT idx, message_id, body FROM ${s}.messages WHERE session_id = $1 AND message_id = ANY($2)`,
            [sessionId, [...ids]],
          );
    const byId = new Map(rows.map((found) => [found.message_id, found]));
    const touched = [...ids].flatMap((id) => {
      const found = byId.get(id);
      return found ? [{ index: found.idx, message: JSON.parse(found.body) }] : [];
    });
    const change = projectEvents(state, touched, events);
    if (change.deleted.length > 0) {
      await client.query(`DELETE FROM ${s}.messages WHERE session_id = $1 AND message_id = ANY($2)`, [
        sessionId,
        change.deleted,
      ]);
    }
    if (change.upserts.length > 0) {
      await client.query(
        `INSERT INTO ${s}.messages (session_id, idx, message_id, body)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[])
         ON CONFLICT (session_id, message_id) DO UPDATE SET idx = excluded.idx, body = excluded.body`,
        [
          sessionId,
          change.upserts.map((entry) => entry.index),
          change.upserts.map((entry) => entry.message.id),
          change.upserts.map((entry) => JSON.stringify(entry.message)),
        ],
      );
    }
    return !deltas && change.state !== state ? JSON.stringify(change.state) : undefined;
  }

  const inTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    await ready;
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

  const store: SessionStore & { coordinate(): Coordination } = {
    async createSession({ owner, ...session }) {
      const { sessionId, createdAt, status } = session;
      await query(
        `INSERT INTO ${s}.sessions (session_id, owner, created_at, updated_at, status, last_seq, transcript_len, body, projection)
         VALUES ($1, $2, $3, $3, $4, 0, 0, $5, $6)`,
        [sessionId, owner ?? null, createdAt, status, JSON.stringify(session), JSON.stringify(emptyProjection)],
      ).catch((error: { code?: string }) => {
        if (error.code === "23505") throw new Error(`Session ${sessionId} exists already.`);
        throw error;
      });
    },
    async getSession(sessionId) {
      const [row] = await query<SessionRow>(`SELECT ${sessionColumns} FROM ${s}.sessions WHERE session_id = $1`, [
        sessionId,
      ]);
      return row && fromRow(row);
    },
    async listSessions({ owner, limit = 50, after } = {}) {
      // Every ISO time sorts before "~", so without a cursor the list starts at the newest.
      const cursor = after ? [after.createdAt, after.sessionId] : ["~", ""];
      const rows =
        owner === undefined
          ? await query<SessionRow>(sessionsAfter(false), [...cursor, limit])
          : await query<SessionRow>(sessionsAfter(true), [...cursor, limit, owner]);
      return rows.map((row): SessionSummary => {
        const { sessionId, createdAt, updatedAt, title, status, lastSeq } = fromRow(row);
        return { sessionId, createdAt, updatedAt, status, lastSeq, ...(title === undefined ? {} : { title }) };
      });
    },
    async countSessions(owner) {
      const [row] = await query<{ count: number }>(
        `SELECT COUNT(*)::int AS count FROM ${s}.sessions WHERE owner = $1`,
        [owner],
      );
      return row?.count ?? 0;
    },
    async deleteSession(sessionId) {
      return inTransaction(async (client) => {
        for (const table of ["events", "transcript", "tool_calls", "requests", "messages", "turn_leases"]) {
          await client.query(`DELETE FROM ${s}.${table} WHERE session_id = $1`, [sessionId]);
        }
        const { rowCount } = await client.query(`DELETE FROM ${s}.sessions WHERE session_id = $1`, [sessionId]);
        return (rowCount ?? 0) > 0;
      });
    },
    async listIdleSessions(updatedBefore, limit = 100) {
      const rows = await query<{ session_id: string }>(
        `SELECT session_id FROM ${s}.sessions WHERE updated_at < $1 ORDER BY updated_at LIMIT $2`,
        [updatedBefore, limit],
      );
      return rows.map((row) => row.session_id);
    },
    readEvents,
    async readSnapshot(sessionId, { before = 2 ** 31 - 1, limit = SNAPSHOT_PAGE } = {}) {
      const [row] = await query<{ last_seq: number; projection: string }>(
        `SELECT last_seq, projection FROM ${s}.sessions WHERE session_id = $1`,
        [sessionId],
      );
      if (!row) return undefined;
      const state = JSON.parse(row.projection) as ProjectionState;
      const rows = await query<{ idx: number; body: string }>(
        `SELECT idx, body FROM ${s}.messages WHERE session_id = $1 AND idx < $2 ORDER BY idx DESC LIMIT $3`,
        [sessionId, Math.min(before, 2 ** 31 - 1), limit + 1],
      );
      const page: ProjectedMessage[] = rows
        .slice(0, limit)
        .reverse()
        .map((message) => ({ index: message.idx, message: JSON.parse(message.body) }));
      const ids = requestIdsOf(page);
      const settled =
        ids.length === 0
          ? []
          : (
              await query<{ body: string }>(
                `SELECT body FROM ${s}.requests WHERE session_id = $1 AND request_id = ANY($2)`,
                [sessionId, ids],
              )
            ).map((request) => JSON.parse(request.body) as RequestRecord);
      return snapshotOf(sessionId, row.last_seq, state, page, rows.length > limit, settled);
    },
    async streamingMessageIds(sessionId) {
      const [row] = await query<{ projection: string }>(`SELECT projection FROM ${s}.sessions WHERE session_id = $1`, [
        sessionId,
      ]);
      return row ? (JSON.parse(row.projection) as ProjectionState).streaming : [];
    },
    async readTranscript(sessionId, from = 0) {
      const rows = await query<{ message: string }>(
        `SELECT message FROM ${s}.transcript WHERE session_id = $1 AND idx >= $2 ORDER BY idx`,
        [sessionId, from],
      );
      return rows.map((row) => JSON.parse(row.message) as LanguageModelV4Message);
    },
    async getToolCalls(sessionId, turnId, step) {
      const rows = await query<{ body: string }>(
        `SELECT body FROM ${s}.tool_calls WHERE session_id = $1 AND turn_id = $2 AND step = $3`,
        [sessionId, turnId, step],
      );
      return rows.map((row) => JSON.parse(row.body) as ToolCallRecord);
    },
    async getRequest(sessionId, requestId) {
      const [row] = await query<{ body: string }>(
        `SELECT body FROM ${s}.requests WHERE session_id = $1 AND request_id = $2`,
        [sessionId, requestId],
      );
      return row && (JSON.parse(row.body) as RequestRecord);
    },
    async getOpenRequests(sessionId) {
      const rows = await query<{ body: string }>(
        `SELECT body FROM ${s}.requests WHERE session_id = $1 AND state = 'open'`,
        [sessionId],
      );
      return rows.map((row) => JSON.parse(row.body) as RequestRecord);
    },
    async listSessionsToRecover() {
      // A turn another instance holds a live lease on is that instance's, not a leftover.
      const rows = await query<{ session_id: string }>(
        `SELECT session_id FROM ${s}.sessions WHERE status IN ('running', 'resuming') AND NOT EXISTS (
           SELECT 1 FROM ${s}.turn_leases WHERE turn_leases.session_id = sessions.session_id AND expires_at > now())`,
      );
      return rows.map((row) => row.session_id);
    },
    async listExpiredRequests(now, limit = 100) {
      // Each due request is claimed by one instance for a while (`claimMs`), so instances
      // sweeping at once share the work instead of all settling the same requests.
      const rows = await query<{ session_id: string; request_id: string }>(
        `UPDATE ${s}.requests SET claimed_until = $3 WHERE (session_id, request_id) IN (
           SELECT session_id, request_id FROM ${s}.requests
           WHERE state = 'open' AND expires_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $4)
           ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING session_id, request_id, expires_at`,
        [now, limit, Date.now() + (options.claimMs ?? 10_000), Date.now()],
      );
      return rows.map((row) => ({ sessionId: row.session_id, requestId: row.request_id }));
    },
    async nextExpiry() {
      const [row] = await query<{ next: string | null }>(
        `SELECT MIN(expires_at) AS next FROM ${s}.requests WHERE state = 'open' AND expires_at IS NOT NULL`,
      );
      return row?.next == null ? undefined : Number(row.next);
    },
    write(sessionId, batch) {
      return inTransaction((client) => write(client, sessionId, batch));
    },
    coordinate() {
      return postgresCoordination({
        pool,
        ready,
        connectionString,
        schema: s,
        channel,
        readEvents,
        leaseMs: options.leaseMs ?? 10_000,
      });
    },
    async close() {
      await ready.catch(() => {});
      await pool.end();
    },
  };
  return store;
}

function fromRow(row: SessionRow): SessionRecord {
  return {
    ...(JSON.parse(row.body) as SessionRecord),
    ...(row.owner === null ? {} : { owner: row.owner }),
    updatedAt: row.updated_at,
    lastSeq: row.last_seq,
    transcriptLength: row.transcript_len,
  };
}
