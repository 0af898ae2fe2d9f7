import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import Database from "better-sqlite3";
import { checkGuards, stampEvents } from "./apply-batch.js";
import type { RequestRecord, SessionRecord, SessionStore, ToolCallRecord, TurnState, WriteBatch } from "./records.js";

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

  const q = {
    insertSession: db.prepare(
      "INSERT INTO sessions (session_id, created_at, status, last_seq, body) VALUES (?, ?, ?, 0, ?)",
    ),
    getSession: db.prepare<[string], { body: string; last_seq: number }>(
      "SELECT body, last_seq FROM sessions WHERE session_id = ?",
    ),
    updateSession: db.prepare("UPDATE sessions SET status = ?, last_seq = ?, body = ? WHERE session_id = ?"),
    sessionState: db.prepare<[string], { status: TurnState; last_seq: number }>(
      "SELECT status, last_seq FROM sessions WHERE session_id = ?",
    ),
    updateLastSeq: db.prepare("UPDATE sessions SET last_seq = ? WHERE session_id = ?"),
    listSessions: db.prepare<[number], { body: string; last_seq: number }>(
      "SELECT body, last_seq FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT ?",
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
    return row && { ...(JSON.parse(row.body) as SessionRecord), lastSeq: row.last_seq };
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
    const events = stampEvents(sessionId, session.lastSeq, batch.events);
    for (const event of events) q.insertEvent.run(sessionId, event.seq, JSON.stringify(event));
    const lastSeq = session.lastSeq + events.length;
    if (batch.session) {
      const { lastSeq: _old, ...body } = { ...(session as SessionRecord), ...batch.session };
      q.updateSession.run(body.status, lastSeq, JSON.stringify(body), sessionId);
    } else if (events.length > 0) {
      q.updateLastSeq.run(lastSeq, sessionId);
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

  return {
    async createSession(session) {
      q.insertSession.run(session.sessionId, session.createdAt, session.status, JSON.stringify(session));
    },
    async getSession(sessionId) {
      return readSession(sessionId);
    },
    async listSessions({ limit = 50 } = {}) {
      return q.listSessions.all(limit).map((row) => {
        const { sessionId, createdAt, title, status } = JSON.parse(row.body) as SessionRecord;
        return { sessionId, createdAt, status, lastSeq: row.last_seq, ...(title === undefined ? {} : { title }) };
      });
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
