/**
 * @hitl-kit/server/sqlite: `sqliteStore(path)`, the durable embedded store. One process owns
 * the file (WAL mode, a transaction per write batch); several processes share a
 * `postgresStore` instead. Needs `better-sqlite3` 12 (Node 20) or 13 (Node 22, 24).
 * @packageDocumentation
 */
import { mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import Database from "better-sqlite3";
import { checkGuards, stampEvents } from "./apply-batch.js";
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
  TurnState,
  WriteBatch,
  WriteResult,
} from "./records.js";
import { reportStoreErrors, STORE_CALLS } from "./report-store-errors.js";
import { fromRow, type SessionRow } from "./session-row.js";
import { asSqliteStoreError, fileTrouble, openFailure } from "./sqlite-errors.js";
import { walCheckpointer } from "./wal-checkpointer.js";

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
  // 2. The projection: each session's state and messages as the person sees them, kept with
  // every write, so reads cost what they return. Filled for existing sessions by
  // `fillProjections` (a fold of each one's log, once). The transcript's length is kept
  // rather than counted, and a turn's tool calls are found by an index.
  `ALTER TABLE sessions ADD COLUMN projection TEXT;
   ALTER TABLE sessions ADD COLUMN transcript_len INTEGER NOT NULL DEFAULT 0;
   UPDATE sessions SET transcript_len = (SELECT COUNT(*) FROM transcript WHERE transcript.session_id = sessions.session_id);
   CREATE TABLE messages (
     session_id TEXT NOT NULL, idx INTEGER NOT NULL, message_id TEXT NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
   CREATE UNIQUE INDEX messages_by_id ON messages(session_id, message_id);
   ALTER TABLE tool_calls ADD COLUMN message_id TEXT;
   ALTER TABLE tool_calls ADD COLUMN step INTEGER;
   UPDATE tool_calls SET step = json_extract(body, '$.step');
   UPDATE tool_calls SET message_id = (
     SELECT json_extract(events.body, '$.messageId') FROM events
     WHERE events.session_id = tool_calls.session_id AND json_extract(events.body, '$.type') = 'tool.called'
       AND json_extract(events.body, '$.toolCallId') = tool_calls.tool_call_id LIMIT 1);
   CREATE INDEX tool_calls_by_step ON tool_calls(session_id, turn_id, step);`,
  // 3. Rows in the order they are written. Keyed by session, a session's new rows went into
  // the middle of each table, on pages of their own, and a commit of many sessions' writes
  // rewrote a page per session per table (14 pages of WAL per answer at 30 sessions). With a
  // rowid, new rows share the last pages, and only small index entries land by session (5).
  rebuild("events", "session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL", [
    "CREATE UNIQUE INDEX events_by_session ON events(session_id, seq)",
  ]) +
    rebuild("transcript", "session_id TEXT NOT NULL, idx INTEGER NOT NULL, message TEXT NOT NULL", [
      "CREATE UNIQUE INDEX transcript_by_session ON transcript(session_id, idx)",
    ]) +
    rebuild(
      "tool_calls",
      "session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, turn_id TEXT NOT NULL, body TEXT NOT NULL, message_id TEXT, step INTEGER",
      [
        "CREATE UNIQUE INDEX tool_calls_by_id ON tool_calls(session_id, tool_call_id)",
        "CREATE INDEX tool_calls_by_step ON tool_calls(session_id, turn_id, step)",
      ],
    ) +
    rebuild(
      "requests",
      "session_id TEXT NOT NULL, request_id TEXT NOT NULL, state TEXT NOT NULL, expires_at INTEGER, body TEXT NOT NULL",
      [
        "CREATE UNIQUE INDEX requests_by_id ON requests(session_id, request_id)",
        "CREATE INDEX requests_open ON requests(session_id) WHERE state = 'open'",
        "CREATE INDEX requests_expiry ON requests(expires_at) WHERE state = 'open' AND expires_at IS NOT NULL",
      ],
    ) +
    rebuild(
      "messages",
      "session_id TEXT NOT NULL, idx INTEGER NOT NULL, message_id TEXT NOT NULL, body TEXT NOT NULL",
      [
        "CREATE UNIQUE INDEX messages_by_idx ON messages(session_id, idx)",
        "CREATE UNIQUE INDEX messages_by_id ON messages(session_id, message_id)",
      ],
    ),
  // 4. The turn each keyed message started, found by its key however old it is.
  `CREATE INDEX events_by_message_key ON events(session_id, json_extract(body, '$.idempotencyKey'))
   WHERE json_extract(body, '$.type') = 'turn.started';`,
];

/**
 * Rebuilds a table keyed by session as a rowid table with the same columns (listed in
 * `columns`, in order), its rows copied in key order, and its indexes created anew.
 */
function rebuild(table: string, columns: string, indexes: string[]): string {
  const names = columns
    .split(",")
    .map((column) => column.trim().split(" ")[0])
    .join(", ");
  return `CREATE TABLE ${table}_rebuilt (id INTEGER PRIMARY KEY, ${columns});
   INSERT INTO ${table}_rebuilt (${names}) SELECT ${names} FROM ${table};
   DROP TABLE ${table};
   ALTER TABLE ${table}_rebuilt RENAME TO ${table};
   ${indexes.map((index) => `${index};`).join("\n   ")}
   `;
}

function migrate(db: Database.Database, filename: string): void {
  const applied = db.pragma("user_version", { simple: true }) as number;
  if (applied > migrations.length) {
    throw new Error(
      `sqliteStore: ${filename} is at version ${applied}, newer than this @hitl-kit/server knows (${migrations.length}): a newer version migrated it. Run that version or a later one; to go back to this one, restore the file from before the migration (see "Upgrades" in docs/deploying.md).`,
    );
  }
  for (let version = applied; version < migrations.length; version += 1) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/**
 * Claims the file for this store alone: a lock file beside it (`<file>.lock`, an empty
 * SQLite database) is opened in `EXCLUSIVE` locking mode and written once, which takes a
 * lock the connection keeps until it closes (the operating system lets go of it when the
 * process dies). A second process, or a second store on the same file, fails here, at
 * start, rather than giving one tool call two results; several instances share one
 * Postgres database instead. The database itself stays open to a second connection of
 * this store's: the one that checkpoints its WAL in a worker thread. Returns the release.
 */
function claim(path: string): () => void {
  // A second store in this process is told so at once: the lock file would make it wait,
  // then blame another process.
  const file = join(realpathSync(dirname(path)), basename(path));
  const held = heldFiles();
  if (held.has(file)) {
    throw new Error(
      `this process already has a sqliteStore open on ${path}: close that store first, or keep one ` +
        "runtime for the process (under a dev server that runs modules again, keep it on globalThis)",
    );
  }
  let lock: Database.Database;
  try {
    lock = new Database(`${path}.lock`);
  } catch (error) {
    throw openFailure(error, `${path}.lock`);
  }
  try {
    lock.pragma("locking_mode = EXCLUSIVE");
    // A process that is just exiting (a restart) gets a moment to let go.
    lock.pragma("busy_timeout = 2000");
    lock.exec("BEGIN EXCLUSIVE; COMMIT");
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === "SQLITE_BUSY") {
      throw new Error(
        `another hitl-kit process holds ${path}; use postgresStore to run several (a build or a dev server's worker that loads the module making the store counts too: make it on the first request)`,
        { cause: error },
      );
    }
    throw openFailure(error, `${path}.lock`);
  }
  held.add(file);
  return () => {
    if (lock.open) lock.close();
    held.delete(file);
  };
}

/** The files this process's stores hold, shared by every copy of this module a dev server may have loaded. */
function heldFiles(): Set<string> {
  const key = Symbol.for("hitl-kit.sqlite-files");
  const global = globalThis as { [key]?: Set<string> };
  global[key] ??= new Set();
  return global[key];
}

/** A session's row: what a write reads and rewrites, and what reads of the session need. */
type StateRow = SessionRow & {
  status: TurnState;
  projection: string | null;
  /** The session parsed from the row, once a read needed it. */
  record?: SessionRecord;
};

/**
 * Opens the file in WAL mode with the store's settings, its schema created or brought up to
 * date, and checks that it may be written.
 */
function openDatabase(path: string, options: SqliteStoreOptions): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw openFailure(error, path);
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("busy_timeout = 5000");
    db.pragma("temp_store = MEMORY");
    db.exec(schema);
    migrate(db, path);
    checkWritable(db);
    return db;
  } catch (error) {
    db.close();
    throw openFailure(error, path);
  }
}

/**
 * Throws unless the connection may write the file. SQLite opens a file it may not write
 * (its mode, a read-only mount) read-only without a word, and a file already up to date
 * needs no write to open: the store would start as if all was well, and fail every write.
 * A write in a transaction that is rolled back asks SQLite itself, and leaves nothing.
 */
function checkWritable(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  db.exec("BEGIN IMMEDIATE");
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    if (db.inTransaction) db.exec("ROLLBACK");
  }
}

/**
 * The embedded default store: one SQLite file in WAL mode, one transaction per write
 * batch, so a settlement and its events land together or not at all. One process owns
 * a file at a time: opening a file another process (or store) holds throws at once.
 * @example
 * const runtime = createAgentRuntime({ model, tools, store: sqliteStore(".data/hitl.sqlite") });
 */
export function sqliteStore(path: string, options: SqliteStoreOptions = {}): SessionStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const release = path === ":memory:" ? undefined : claim(path);
  let db: Database.Database;
  try {
    db = openDatabase(path, options);
  } catch (error) {
    // A file that cannot be opened (not a database, say) is left unclaimed.
    release?.();
    throw error;
  }
  // Checkpoints run in a worker thread (see wal-checkpointer.ts), not inside this thread's
  // commits; while the worker finishes one (`paused`), writes wait in the queue, and
  // creating or deleting a session waits too, so this thread never waits on the file's lock.
  let paused: { over: Promise<void>; end: () => void } | undefined;
  const checkpointer =
    path === ":memory:"
      ? undefined
      : walCheckpointer(
          path,
          WAL_BYTES,
          {
            pause: () => {
              let end = () => {};
              paused = { over: new Promise<void>((resolve) => (end = resolve)), end };
            },
            resume: () => {
              paused?.end();
              paused = undefined;
              if (queued.length > 0) setImmediate(commitQueued);
            },
            fallback: () => db.open && db.pragma("wal_autocheckpoint = 1000"),
          },
          HARD_WAL_BYTES,
        );
  if (checkpointer) {
    db.pragma("wal_autocheckpoint = 0");
    // A WAL grown past the bound (commits outran the disk) is cut back to it when it starts over.
    db.pragma(`journal_size_limit = ${HARD_WAL_BYTES}`);
  }
  const sessionColumns = "body, last_seq, owner, updated_at, transcript_len";

  const q = {
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
    listOwned: db.prepare<[string, string, string, number], SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE owner = ? AND (created_at, session_id) < (?, ?)
       ORDER BY created_at DESC, session_id DESC LIMIT ?`,
    ),
    listAll: db.prepare<[string, string, number], SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE (created_at, session_id) < (?, ?)
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

  // The rows of the sessions in use, as last committed: this process is the file's only
  // writer (see `claim`), so a session's reads and each write's read of its row skip the
  // query. A write stages its new row; the rows go into the cache when its transaction
  // commits and are dropped when it rolls back.
  const rows = new RowCache(CACHED_SESSIONS);
  const staged = new Map<string, StateRow>();
  const committedRow = (sessionId: string): StateRow | undefined => {
    let row = rows.get(sessionId);
    if (!row) {
      row = q.sessionState.get(sessionId);
      if (row) rows.set(sessionId, row);
    }
    return row;
  };
  const commitStaged = () => {
    for (const [sessionId, row] of staged) rows.set(sessionId, row);
    staged.clear();
  };
  const readSession = (sessionId: string): SessionRecord | undefined => {
    const row = committedRow(sessionId);
    if (!row) return undefined;
    row.record ??= fromRow(row);
    return { ...row.record };
  };
  const readRequest = (sessionId: string, requestId: string): RequestRecord | undefined => {
    const row = q.getRequest.get(sessionId, requestId);
    return row && (JSON.parse(row.body) as RequestRecord);
  };

  /** Applies a batch's events to the session's projection: its state and the messages they touch. */
  /**
   * Applies a batch's events to the session's projection: writes the messages they touch,
   * and answers the projection's new state (JSON), or `undefined` when it did not change.
   */
  const project = (sessionId: string, stored: string | null, events: ProtocolEvent[]): string | undefined => {
    // Deltas (most writes) change only their message: the state is neither read nor written.
    const deltas = stored !== null && events.every((e) => e.type === "text.delta" || e.type === "reasoning.delta");
    const state = deltas || stored === null ? emptyProjection : (JSON.parse(stored) as ProjectionState);
    const { messageIds, toolCallIds } = messagesTouchedBy(events);
    const ids = new Set(messageIds);
    for (const id of toolCallIds) {
      const messageId = q.messageOfCall.get(sessionId, id)?.message_id;
      if (messageId) ids.add(messageId);
    }
    const touched = [...ids].flatMap((id) => {
      const row = q.projectedMessage.get(sessionId, id);
      return row ? [{ index: row.idx, message: JSON.parse(row.body) }] : [];
    });
    const change = projectEvents(state, touched, events);
    for (const { index, message } of change.upserts) {
      q.upsertProjected.run(sessionId, index, message.id, JSON.stringify(message));
    }
    for (const id of change.deleted) q.deleteProjected.run(sessionId, id);
    return !deltas && (change.state !== state || stored === null) ? JSON.stringify(change.state) : undefined;
  };

  /** One write's statements; run inside a transaction (its own, or its group's). */
  const apply = (sessionId: string, batch: WriteBatch) => {
    // One read of the session's row and one update of it: most writes (streamed text) only
    // append events, and parse nothing of the session.
    const row = staged.get(sessionId) ?? committedRow(sessionId);
    if (!row) return { ok: false as const, reason: "not_found" as const };
    const refused = checkGuards(batch, row.status, (id) => readRequest(sessionId, id));
    if (refused) return refused;
    const at = new Date().toISOString();
    const events = stampEvents(sessionId, row.last_seq, at, batch.events);
    for (const event of events) q.insertEvent.run(sessionId, event.seq, JSON.stringify(event));
    let { status, body } = row;
    if (batch.session) {
      const changed = { ...(JSON.parse(body) as SessionRecord), ...batch.session };
      status = changed.status;
      body = JSON.stringify(changed);
    }
    let transcriptLength = row.transcript_len;
    for (const message of batch.transcript ?? []) {
      q.insertMessage.run(sessionId, transcriptLength++, JSON.stringify(message));
    }
    for (const call of batch.toolCalls ?? []) {
      const { toolCallId, turnId, step, messageId } = call;
      q.upsertCall.run(sessionId, toolCallId, turnId, step, messageId ?? null, JSON.stringify(call));
    }
    for (const request of batch.requests ?? []) {
      const json = JSON.stringify(request);
      q.upsertRequest.run(sessionId, request.requestId, request.state, request.expiresAt ?? null, json);
    }
    const projection = (events.length > 0 && project(sessionId, row.projection, events)) || row.projection;
    const lastSeq = row.last_seq + events.length;
    q.updateSession.run(status, body, lastSeq, at, transcriptLength, projection, sessionId);
    staged.set(sessionId, {
      status,
      body,
      last_seq: lastSeq,
      updated_at: at,
      transcript_len: transcriptLength,
      projection,
      owner: row.owner,
    });
    return { ok: true as const, events };
  };
  const writeAlone = db.transaction(apply);
  const write = (sessionId: string, batch: WriteBatch) => {
    try {
      const result = writeAlone(sessionId, batch);
      commitStaged();
      return result;
    } finally {
      staged.clear();
    }
  };

  // Group commit: the writes that arrive in one turn of the event loop (from any sessions)
  // share one transaction. Committing costs SQLite a fixed amount and the pages it dirtied,
  // and concurrent sessions share the sessions table's pages and its indexes'. A write is
  // answered once its group is committed. Should one write throw (data that cannot be
  // stored), the group is rolled back and each write runs again in a transaction of its
  // own, so what one batch does or fails to do is its own. Trouble with the file (a full
  // disk) is no batch's own: the group's writes all fail with it, not each again alone.
  let queued: QueuedWrite[] = [];
  const writeGroup = db.transaction((group: QueuedWrite[]) => group.map((item) => apply(item.sessionId, item.batch)));
  const commitQueued = () => {
    if (paused || queued.length === 0) return;
    const group = queued;
    queued = [];
    let results: WriteResult[];
    try {
      results = writeGroup(group);
      commitStaged();
    } catch (error) {
      staged.clear();
      if (fileTrouble(error, path) !== undefined) {
        for (const item of group) item.reject(error);
        return;
      }
      for (const item of group) {
        try {
          item.resolve(write(item.sessionId, item.batch));
        } catch (error) {
          item.reject(error);
        }
      }
      return;
    }
    checkpointer?.committed();
    for (const [index, item] of group.entries()) item.resolve(results[index]!);
  };

  /** Builds the projection of sessions stored before it existed: a fold of each one's log, once. */
  const fillProjections = () => {
    for (const { session_id: sessionId } of q.unprojected.all()) {
      db.transaction(() => {
        const events = q.allEvents.all(sessionId).map((row) => JSON.parse(row.body) as ProtocolEvent);
        q.setProjection.run(project(sessionId, null, events) ?? JSON.stringify(emptyProjection), sessionId);
      })();
    }
  };
  fillProjections();

  const remove = db.transaction((sessionId: string) => {
    rows.delete(sessionId);
    let deleted = 0;
    for (const statement of q.deleteFrom) deleted = statement.run(sessionId).changes;
    return deleted > 0; // the last statement deletes the session row
  });

  const store: SessionStore = {
    async createSession({ owner, ...session }) {
      if (paused) await paused.over;
      const { sessionId, createdAt, status } = session;
      q.insertSession.run(
        sessionId,
        createdAt,
        status,
        JSON.stringify(session),
        owner ?? null,
        createdAt,
        JSON.stringify(emptyProjection),
      );
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
      if (paused) await paused.over;
      return remove(sessionId);
    },
    async listIdleSessions(updatedBefore, limit = 100) {
      return q.idle.all(updatedBefore, limit).map((row) => row.session_id);
    },
    async readEvents(sessionId, afterSeq, limit = -1) {
      return q.readEvents.all(sessionId, afterSeq, limit).map((row) => JSON.parse(row.body) as ProtocolEvent);
    },
    async readSnapshot(sessionId, { before = Number.MAX_SAFE_INTEGER, limit = SNAPSHOT_PAGE } = {}) {
      const row = committedRow(sessionId);
      if (!row) return undefined;
      const state = row.projection === null ? emptyProjection : (JSON.parse(row.projection) as ProjectionState);
      const rows = q.messagesPage.all(sessionId, before, limit + 1);
      const page: ProjectedMessage[] = rows
        .slice(0, limit)
        .reverse()
        .map((message) => ({ index: message.idx, message: JSON.parse(message.body) }));
      const ids = requestIdsOf(page);
      const settled =
        ids.length === 0
          ? []
          : q.requestsById.all(sessionId, JSON.stringify(ids)).map((request) => JSON.parse(request.body));
      return snapshotOf(sessionId, row.last_seq, state, page, rows.length > limit, settled);
    },
    async streamingMessageIds(sessionId) {
      const projection = committedRow(sessionId)?.projection;
      return projection ? (JSON.parse(projection) as ProjectionState).streaming : [];
    },
    async readTranscript(sessionId, from = 0) {
      return q.readTranscript.all(sessionId, from).map((row) => JSON.parse(row.message) as LanguageModelV4Message);
    },
    async getToolCalls(sessionId, turnId, step) {
      return q.getCalls
        .all(sessionId, turnId, step)
        .map((row) => JSON.parse(row.body) as ToolCallRecord)
        .sort(byIndex);
    },
    async getRequest(sessionId, requestId) {
      return readRequest(sessionId, requestId);
    },
    async getOpenRequests(sessionId) {
      return q.openRequests.all(sessionId).map((row) => JSON.parse(row.body) as RequestRecord);
    },
    async findKeyedTurn(sessionId, key) {
      return q.keyedTurn.get(sessionId, key)?.turn_id;
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
    write(sessionId, batch) {
      return new Promise((resolve, reject) => {
        if (queued.push({ sessionId, batch, resolve, reject }) === 1 && !paused) setImmediate(commitQueued);
      });
    },
    async close() {
      const closeConnection = () => {
        commitQueued();
        if (db.open) db.close();
      };
      // A checkpoint under way ends first: it holds the writes that wait until it has.
      if (checkpointer) await checkpointer.close(closeConnection);
      else closeConnection();
      release?.();
    },
  };
  // A full disk, a read-only file, an I/O error: reported as StoreUnavailable, which the
  // runtime answers with 503 and a running turn waits out. Each failed write was rolled
  // back, and the row cache took none of it (rows enter it only once their write commits).
  return reportStoreErrors(store, STORE_CALLS, (error) => asSqliteStoreError(error, path));
}

/** How many sessions' rows the store keeps in memory: far more than are busy at once. */
const CACHED_SESSIONS = 2_000;

/** Rows by session id, the least recently used dropped first past `limit`. */
class RowCache {
  readonly #rows = new Map<string, StateRow>();
  constructor(private readonly limit: number) {}
  get(sessionId: string) {
    const row = this.#rows.get(sessionId);
    if (row) {
      this.#rows.delete(sessionId);
      this.#rows.set(sessionId, row);
    }
    return row;
  }
  set(sessionId: string, row: StateRow) {
    this.#rows.delete(sessionId);
    this.#rows.set(sessionId, row);
    if (this.#rows.size > this.limit) this.#rows.delete(this.#rows.keys().next().value as string);
  }
  delete(sessionId: string) {
    this.#rows.delete(sessionId);
  }
}

/** The WAL's size at which a checkpoint starts: SQLite's own default (1,000 pages). */
const WAL_BYTES = 4 * 1024 * 1024;
/** The WAL's size at which commits wait for the checkpoint to catch up. */
const HARD_WAL_BYTES = 16 * WAL_BYTES;

interface QueuedWrite {
  sessionId: string;
  batch: WriteBatch;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

const byIndex = (a: ToolCallRecord, b: ToolCallRecord) => a.index - b.index;
