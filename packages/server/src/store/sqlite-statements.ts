import type Database from "better-sqlite3";
import type { SessionRecord, TurnState } from "./records.js";
import type { SessionRow } from "./session-row.js";

/** A session's row: what a write reads and rewrites, and what reads of the session need. */
export type StateRow = SessionRow & {
  status: TurnState;
  projection: string | null;
  /** The session parsed from the row, once a read needed it. */
  record?: SessionRecord;
};

const sessionColumns = "body, last_seq, owner, updated_at, transcript_len";
/** A listed session's open requests, counted on the `requests_open` index. */
const pendingCount =
  "(SELECT COUNT(*) FROM requests WHERE requests.session_id = sessions.session_id AND state = 'open') AS pending";

/** Prepares the SQLite store's statements on its connection, once. */
export function prepareStatements(db: Database.Database) {
  return {
    insertSession: db.prepare(
      `INSERT INTO sessions (session_id, created_at, status, last_seq, body, owner, updated_at, projection)
       VALUES (?, ?, ?, 0, ?, ?, ?, ?)`,
    ),
    sessionState: db.prepare<[string], StateRow>(
      `SELECT status, projection, ${sessionColumns} FROM sessions WHERE session_id = ?`,
    ),
    updateSession: db.prepare(
      `UPDATE sessions SET status = ?, body = ?, last_seq = ?, updated_at = ?, transcript_len = ?, projection = ?
       WHERE session_id = ?`,
    ),
    setProjection: db.prepare("UPDATE sessions SET projection = ? WHERE session_id = ?"),
    listOwned: db.prepare<[string, string, string, number], SessionRow & { pending: number }>(
      `SELECT ${sessionColumns}, ${pendingCount} FROM sessions WHERE owner = ? AND (created_at, session_id) < (?, ?)
       ORDER BY created_at DESC, session_id DESC LIMIT ?`,
    ),
    listAll: db.prepare<[string, string, number], SessionRow & { pending: number }>(
      `SELECT ${sessionColumns}, ${pendingCount} FROM sessions WHERE (created_at, session_id) < (?, ?)
       ORDER BY created_at DESC, session_id DESC LIMIT ?`,
    ),
    countOwned: db.prepare<[string], { count: number }>("SELECT COUNT(*) AS count FROM sessions WHERE owner = ?"),
    idle: db.prepare<[string, number], { session_id: string }>(
      "SELECT session_id FROM sessions WHERE updated_at < ? ORDER BY updated_at LIMIT ?",
    ),
    deleteFrom: ["events", "transcript", "tool_calls", "requests", "messages", "sessions"].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE session_id = ?`),
    ),
    recover: db.prepare<[], { session_id: string }>(
      "SELECT session_id FROM sessions WHERE status IN ('running', 'resuming')",
    ),
    insertEvent: db.prepare("INSERT INTO events (session_id, seq, body) VALUES (?, ?, ?)"),
    keyedTurn: db.prepare<[string, string], { turn_id: string }>(
      `SELECT json_extract(body, '$.turnId') AS turn_id FROM events WHERE session_id = ?
       AND json_extract(body, '$.type') = 'turn.started' AND json_extract(body, '$.idempotencyKey') = ? LIMIT 1`,
    ),
    readEvents: db.prepare<[string, number, number], { body: string }>(
      "SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    ),
    insertMessage: db.prepare("INSERT INTO transcript (session_id, idx, message) VALUES (?, ?, ?)"),
    readTranscript: db.prepare<[string, number], { message: string }>(
      "SELECT message FROM transcript WHERE session_id = ? AND idx >= ? ORDER BY idx",
    ),
    upsertCall: db.prepare(
      "INSERT OR REPLACE INTO tool_calls (session_id, tool_call_id, turn_id, step, message_id, body) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    messageOfCall: db.prepare<[string, string], { message_id: string | null }>(
      "SELECT message_id FROM tool_calls WHERE session_id = ? AND tool_call_id = ?",
    ),
    projectedMessage: db.prepare<[string, string], { idx: number; body: string }>(
      "SELECT idx, body FROM messages WHERE session_id = ? AND message_id = ?",
    ),
    upsertProjected: db.prepare(
      "INSERT OR REPLACE INTO messages (session_id, idx, message_id, body) VALUES (?, ?, ?, ?)",
    ),
    deleteProjected: db.prepare("DELETE FROM messages WHERE session_id = ? AND message_id = ?"),
    messagesPage: db.prepare<[string, number, number], { idx: number; body: string }>(
      "SELECT idx, body FROM messages WHERE session_id = ? AND idx < ? ORDER BY idx DESC LIMIT ?",
    ),
    requestsById: db.prepare<[string, string], { body: string }>(
      "SELECT body FROM requests WHERE session_id = ? AND request_id IN (SELECT value FROM json_each(?))",
    ),
    unprojected: db.prepare<[], { session_id: string }>("SELECT session_id FROM sessions WHERE projection IS NULL"),
    allEvents: db.prepare<[string], { body: string }>("SELECT body FROM events WHERE session_id = ? ORDER BY seq"),
    getCalls: db.prepare<[string, string, number], { body: string }>(
      // INDEXED BY: without statistics SQLite picks the primary key and reads all the session's calls.
      "SELECT body FROM tool_calls INDEXED BY tool_calls_by_step WHERE session_id = ? AND turn_id = ? AND step = ?",
    ),
    upsertRequest: db.prepare(
      "INSERT OR REPLACE INTO requests (session_id, request_id, state, expires_at, body) VALUES (?, ?, ?, ?, ?)",
    ),
    getRequest: db.prepare<[string, string], { body: string }>(
      "SELECT body FROM requests WHERE session_id = ? AND request_id = ?",
    ),
    openRequests: db.prepare<[string], { body: string }>(
      // INDEXED BY: without statistics SQLite picks the primary key and reads all the session's requests.
      "SELECT body FROM requests INDEXED BY requests_open WHERE session_id = ? AND state = 'open'",
    ),
    expired: db.prepare<[number, number], { session_id: string; request_id: string }>(
      "SELECT session_id, request_id FROM requests WHERE state = 'open' AND expires_at <= ? ORDER BY expires_at LIMIT ?",
    ),
    nextExpiry: db.prepare<[], { next: number | null }>(
      "SELECT MIN(expires_at) AS next FROM requests WHERE state = 'open' AND expires_at IS NOT NULL",
    ),
  };
}

/** The SQLite store's prepared statements. */
export type SqliteStatements = ReturnType<typeof prepareStatements>;
