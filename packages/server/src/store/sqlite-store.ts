import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import Database from "better-sqlite3";
import { checkGuards, stampEvents } from "./apply-batch.js";
import type {
  RequestRecord,
  SessionRecord,
  SessionStore,
  SessionSummary,
  ToolCallRecord,
  TurnState,
  WriteBatch,
} from "./records.js";

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * `normal` (default) survives a process crash — the WAL is synced at checkpoints;
   * `full` also survives power loss, at the cost of an fsync per write.
   */
  synchronous?: "normal" | "full";
}

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
  last_seq INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_active ON sessions(status) WHERE status IN ('running', 'resuming');
CREATE TABLE IF NOT EXISTS events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS transcript (
  session_id TEXT NOT NULL, idx INTEGER NOT NULL, message TEXT NOT NULL,
  PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_calls (
  session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, turn_id TEXT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (session_id, tool_call_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS requests (
  session_id TEXT NOT NULL, request_id TEXT NOT NULL, state TEXT NOT NULL, expires_at INTEGER, body TEXT NOT NULL,
  PRIMARY KEY (session_id, request_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS requests_open ON requests(session_id) WHERE state = 'open';
CREATE INDEX IF NOT EXISTS requests_expiry ON requests(expires_at) WHERE state = 'open' AND expires_at IS NOT NULL;
`;

/**
 * Schema changes after the first release, applied in order to files that have not had
 * them (`PRAGMA user_version` counts the ones applied), each in one transaction.
 */
const migrations = [
  // 1. Owners and last activity. Sessions stored before owners existed keep a NULL owner:
  // the fetch handler shows them to no one. Their last activity is their newest event's time.
  `ALTER TABLE sessions ADD COLUMN owner TEXT;
   ALTER TABLE sessions ADD COLUMN updated_at TEXT;
   UPDATE sessions SET updated_at = COALESCE(
     (SELECT json_extract(events.body, '$.at') FROM events WHERE events.session_id = sessions.session_id
      ORDER BY seq DESC LIMIT 1),
     created_at);
   CREATE INDEX sessions_by_owner ON sessions(owner, created_at, session_id);
   CREATE INDEX sessions_by_activity ON sessions(updated_at);`,
];

function migrate(db: Database.Database): void {
  const applied = db.pragma("user_version", { simple: true }) as number;
  for (let version = applied; version < migrations.length; version += 1) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

type SessionRow = { body: string; last_seq: number; owner: string | null; updated_at: string };

/**
 * The embedded default store: one SQLite file in WAL mode, one transaction per write
 * batch, so a settlement and its events land together or not at all. One process owns
 * a file at a time.
 * @example
 * const runtime = createAgentRuntime({ model, tools, store: sqliteStore(".data/hitl.sqlite") });
 */
export function sqliteStore(path: string, options: SqliteStoreOptions = {}): SessionStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  db.exec(schema);
  migrate(db);

  const q = {
    insertSession: db.prepare(
      "INSERT INTO sessions (session_id, created_at, status, last_seq, body, owner, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?)",
    ),
    getSession: db.prepare<[string], SessionRow>(
      "SELECT body, last_seq, owner, updated_at FROM sessions WHERE session_id = ?",
    ),
    updateSession: db.prepare(
      "UPDATE sessions SET status = ?, last_seq = ?, body = ?, updated_at = ? WHERE session_id = ?",
    ),
    sessionState: db.prepare<[string], { status: TurnState; last_seq: number }>(
      "SELECT status, last_seq FROM sessions WHERE session_id = ?",
    ),
    touchSession: db.prepare("UPDATE sessions SET last_seq = ?, updated_at = ? WHERE session_id = ?"),
    listOwned: db.prepare<[string, string, string, number], SessionRow>(
      `SELECT body, last_seq, owner, updated_at FROM sessions WHERE owner = ? AND (created_at, session_id) < (?, ?)
       ORDER BY created_at DESC, session_id DESC LIMIT ?`,
    ),
    listAll: db.prepare<[string, string, number], SessionRow>(
      `SELECT body, last_seq, owner, updated_at FROM sessions WHERE (created_at, session_id) < (?, ?)
       ORDER BY created_at DESC, session_id DESC LIMIT ?`,
    ),
    countOwned: db.prepare<[string], { count: number }>("SELECT COUNT(*) AS count FROM sessions WHERE owner = ?"),
    idle: db.prepare<[string, number], { session_id: string }>(
      "SELECT session_id FROM sessions WHERE updated_at < ? ORDER BY updated_at LIMIT ?",
    ),
    deleteFrom: ["events", "transcript", "tool_calls", "requests", "sessions"].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE session_id = ?`),
    ),
    recover: db.prepare<[], { session_id: string }>(
      "SELECT session_id FROM sessions WHERE status IN ('running', 'resuming')",
    ),
    insertEvent: db.prepare("INSERT INTO events (session_id, seq, body) VALUES (?, ?, ?)"),
    readEvents: db.prepare<[string, number, number], { body: string }>(
      "SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    ),
    insertMessage: db.prepare(
      "INSERT INTO transcript (session_id, idx, message) VALUES (?, (SELECT COUNT(*) FROM transcript WHERE session_id = ?), ?)",
    ),
    readTranscript: db.prepare<[string], { message: string }>(
      "SELECT message FROM transcript WHERE session_id = ? ORDER BY idx",
    ),
    upsertCall: db.prepare(
      "INSERT OR REPLACE INTO tool_calls (session_id, tool_call_id, turn_id, body) VALUES (?, ?, ?, ?)",
    ),
    getCalls: db.prepare<[string, string], { body: string }>(
      "SELECT body FROM tool_calls WHERE session_id = ? AND turn_id = ?",
    ),
    upsertRequest: db.prepare(
      "INSERT OR REPLACE INTO requests (session_id, request_id, state, expires_at, body) VALUES (?, ?, ?, ?, ?)",
    ),
    getRequest: db.prepare<[string, string], { body: string }>(
      "SELECT body FROM requests WHERE session_id = ? AND request_id = ?",
    ),
    openRequests: db.prepare<[string], { body: string }>(
      "SELECT body FROM requests WHERE session_id = ? AND state = 'open'",
    ),
    expired: db.prepare<[number, number], { session_id: string; request_id: string }>(
      "SELECT session_id, request_id FROM requests WHERE state = 'open' AND expires_at <= ? ORDER BY expires_at LIMIT ?",
    ),
    nextExpiry: db.prepare<[], { next: number | null }>(
      "SELECT MIN(expires_at) AS next FROM requests WHERE state = 'open' AND expires_at IS NOT NULL",
    ),
  };

  const readSession = (sessionId: string): SessionRecord | undefined => {
    const row = q.getSession.get(sessionId);
    return row && fromRow(row);
  };
  const readRequest = (sessionId: string, requestId: string): RequestRecord | undefined => {
    const row = q.getRequest.get(sessionId, requestId);
    return row && (JSON.parse(row.body) as RequestRecord);
  };

  const write = db.transaction((sessionId: string, batch: WriteBatch) => {
    // Most writes (every text delta) only append events: read and write just the columns
    // they need, not the session's JSON.
    const state = batch.session ? undefined : q.sessionState.get(sessionId);
    const session = batch.session ? readSession(sessionId) : state && { status: state.status, lastSeq: state.last_seq };
    if (!session) return { ok: false as const, reason: "not_found" as const };
    const refused = checkGuards(batch, session.status, (id) => readRequest(sessionId, id));
    if (refused) return refused;
    const at = new Date().toISOString();
    const events = stampEvents(sessionId, session.lastSeq, at, batch.events);
    for (const event of events) q.insertEvent.run(sessionId, event.seq, JSON.stringify(event));
    const lastSeq = session.lastSeq + events.length;
    if (batch.session) {
      const {
        lastSeq: _seq,
        owner: _owner,
        updatedAt: _at,
        ...body
      } = { ...(session as SessionRecord), ...batch.session };
      q.updateSession.run(body.status, lastSeq, JSON.stringify(body), at, sessionId);
    } else {
      q.touchSession.run(lastSeq, at, sessionId);
    }
    for (const message of batch.transcript ?? []) q.insertMessage.run(sessionId, sessionId, JSON.stringify(message));
    for (const call of batch.toolCalls ?? []) {
      q.upsertCall.run(sessionId, call.toolCallId, call.turnId, JSON.stringify(call));
    }
    for (const request of batch.requests ?? []) {
      const body = JSON.stringify(request);
      q.upsertRequest.run(sessionId, request.requestId, request.state, request.expiresAt ?? null, body);
    }
    return { ok: true as const, events };
  });

  const remove = db.transaction((sessionId: string) => {
    let deleted = 0;
    for (const statement of q.deleteFrom) deleted = statement.run(sessionId).changes;
    return deleted > 0; // the last statement deletes the session row
  });

  return {
    async createSession({ owner, ...session }) {
      const { sessionId, createdAt, status } = session;
      q.insertSession.run(sessionId, createdAt, status, JSON.stringify(session), owner ?? null, createdAt);
    },
    async getSession(sessionId) {
      return readSession(sessionId);
    },
    async listSessions({ owner, limit = 50, after } = {}) {
      // Every ISO time sorts before "~", so without a cursor the list starts at the newest.
      const [createdAt, sessionId] = after ? [after.createdAt, after.sessionId] : ["~", ""];
      const rows =
        owner === undefined
          ? q.listAll.all(createdAt, sessionId, limit)
          : q.listOwned.all(owner, createdAt, sessionId, limit);
      return rows.map((row): SessionSummary => {
        const { sessionId, createdAt, updatedAt, title, status, lastSeq } = fromRow(row);
        return { sessionId, createdAt, updatedAt, status, lastSeq, ...(title === undefined ? {} : { title }) };
      });
    },
    async countSessions(owner) {
      return q.countOwned.get(owner)?.count ?? 0;
    },
    async deleteSession(sessionId) {
      return remove(sessionId);
    },
    async listIdleSessions(updatedBefore, limit = 100) {
      return q.idle.all(updatedBefore, limit).map((row) => row.session_id);
    },
    async readEvents(sessionId, afterSeq, limit = -1) {
      return q.readEvents.all(sessionId, afterSeq, limit).map((row) => JSON.parse(row.body) as ProtocolEvent);
    },
    async readTranscript(sessionId) {
      return q.readTranscript.all(sessionId).map((row) => JSON.parse(row.message) as LanguageModelV4Message);
    },
    async getToolCalls(sessionId, turnId) {
      return q.getCalls.all(sessionId, turnId).map((row) => JSON.parse(row.body) as ToolCallRecord);
    },
    async getRequest(sessionId, requestId) {
      return readRequest(sessionId, requestId);
    },
    async getOpenRequests(sessionId) {
      return q.openRequests.all(sessionId).map((row) => JSON.parse(row.body) as RequestRecord);
    },
    async listSessionsToRecover() {
      return q.recover.all().map((row) => row.session_id);
    },
    async listExpiredRequests(now, limit = 100) {
      return q.expired.all(now, limit).map((row) => ({ sessionId: row.session_id, requestId: row.request_id }));
    },
    async nextExpiry() {
      return q.nextExpiry.get()?.next ?? undefined;
    },
    async write(sessionId, batch) {
      return write(sessionId, batch);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function fromRow(row: SessionRow): SessionRecord {
  return {
    ...(JSON.parse(row.body) as SessionRecord),
    ...(row.owner === null ? {} : { owner: row.owner }),
    updatedAt: row.updated_at,
    lastSeq: row.last_seq,
  };
}
