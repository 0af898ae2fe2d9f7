/**
 * @hitl-kit/server/sqlite: `sqliteStore(path)`, the durable embedded store. One process owns
 * the file (WAL mode, a transaction per write batch); several processes share a
 * `postgresStore` instead. Needs `better-sqlite3` 12 (Node 20) or 13 (Node 22, 24).
 * @packageDocumentation
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import type Database from "better-sqlite3";
import { setImmediate } from "../runtime/event-loop.js";
import { checkGuards, stampEvents } from "./apply-batch.js";
import {
  emptyProjection,
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
import { reportStoreErrors, STORE_CALLS } from "./report-store-errors.js";
import { RowCache } from "./row-cache.js";
import { fromRow, summaryOf } from "./session-row.js";
import { openDatabase } from "./sqlite-database.js";
import { asSqliteStoreError, fileTrouble } from "./sqlite-errors.js";
import { claim } from "./sqlite-file-claim.js";
import { fillProjections, updateProjection } from "./sqlite-projection.js";
import { prepareStatements, type StateRow } from "./sqlite-statements.js";
import { walCheckpointer } from "./wal-checkpointer.js";

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * `normal` (default) survives a process crash — the WAL is synced at checkpoints;
   * `full` also survives power loss, at the cost of an fsync per write.
   */
  synchronous?: "normal" | "full";
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
  const q = prepareStatements(db);

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
    const projection = (events.length > 0 && updateProjection(q, sessionId, row.projection, events)) || row.projection;
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
  fillProjections(db, q);

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
      try {
        q.insertSession.run(
          sessionId,
          createdAt,
          status,
          JSON.stringify(session),
          owner ?? null,
          createdAt,
          JSON.stringify(emptyProjection),
        );
      } catch (error) {
        if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
          throw new Error(`Session ${sessionId} exists already.`);
        }
        throw error;
      }
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
      return rows.map((row): SessionSummary => summaryOf(row));
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
