import type Database from "better-sqlite3";

/** The tables and indexes of a new file, as the first release made them; `migrate` brings them up to date. */
export const schema = `
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

/**
 * Brings a file's schema up to date: applies the migrations it has not had, each in one
 * transaction. Throws for a file a newer version migrated.
 */
export function migrate(db: Database.Database, filename: string): void {
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
