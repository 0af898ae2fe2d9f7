import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestRecord, SessionRecord, ToolCallRecord, WriteBatch } from "./records.js";
import type { SessionRow } from "./session-row.js";

/**
 * What `lock_session` answers: the session's row with its version (xmin) and projection,
 * its open requests, its step's calls and their messages, and its streaming messages.
 */
export type LockedRow = SessionRow & {
  version: string;
  projection: string;
  open_requests: string[] | null;
  step_calls: string[] | null;
  step_messages: [number, string, string][] | null;
  streaming: string[] | null;
};

/** What a write needs of its session before it writes: read (`read_for_write`) or, in a section, known. */
export type WriteRow = {
  version: string;
  status: SessionRecord["status"];
  body: string;
  last_seq: number;
  transcript_len: number;
  projection: string;
  owner: string | null;
  settled: string[] | null;
  touched: [number, string, string][] | null;
  leased: boolean;
};

/** What a write changed, for the section's read to follow. */
export interface WriteChange {
  /** The version the write was based on, and the row's version after it. */
  basedOn: string;
  version: string;
  row: SessionRow;
  projection: string;
  upserts: { index: number; message: { id: string } }[];
  deleted: string[];
  /** The streaming messages after it: `undefined` when the write did not compute them, `"unchanged"` when it appended no events. */
  streaming: string[] | undefined | "unchanged";
}

/**
 * The SQL function a section's lock is taken with (migrations 2 and 4): it waits for the session's
 * advisory lock, then reads what most sections read first, in the same round trip. It is
 * VOLATILE, so the read takes a snapshot of its own, after the lock was granted: it sees
 * every write committed before. No row when there is no such session (or the key is not a
 * session's, as the runtime's per-owner sections).
 */
export function lockSessionFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.lock_session(space integer, id text)
     RETURNS TABLE (body text, last_seq integer, owner text, updated_at text, transcript_len integer,
       version text, projection text, open_requests json, step_calls json, step_messages json, streaming json)
     LANGUAGE plpgsql VOLATILE AS $fn$
     BEGIN
       PERFORM pg_advisory_lock(space, hashtext(id));
       RETURN QUERY SELECT s.body, s.last_seq, s.owner, s.updated_at, s.transcript_len, s.xmin::text, s.projection,
         (SELECT json_agg(r.body) FROM ${s}.requests r WHERE r.session_id = id AND r.state = 'open'),
         (SELECT json_agg(c.body) FROM ${s}.tool_calls c WHERE c.session_id = id
           AND c.turn_id = cur.turn_id AND c.step = cur.step),
         (SELECT json_agg(json_build_array(m.idx, m.message_id, m.body)) FROM ${s}.messages m
           WHERE m.session_id = id AND m.message_id IN (SELECT c.message_id FROM ${s}.tool_calls c WHERE c.session_id = id
             AND c.turn_id = cur.turn_id AND c.step = cur.step)),
         ${s}.parse_json(s.projection)->'streaming'
       FROM ${s}.sessions s, LATERAL (SELECT j->>'turnId' AS turn_id, (j->>'step')::integer AS step
         FROM (SELECT ${s}.parse_json(s.body) AS j) parsed) cur
       WHERE s.session_id = id;
     END $fn$`;
}

/** A section's lock being read, until its read opens: `stale` once a write from outside the sections started or ended meanwhile. */
export interface LockReading {
  stale: boolean;
  done(): void;
}

/**
 * One section's read: `undefined` parts were changed in ways the store did not follow and
 * are read again. While `version` is set, the session's row, projection, open requests, step
 * calls and `messages` (some of the session's messages, by id) are exactly the database's at
 * that version of the row, so a write may skip its read: its statement writes only if the row
 * is still at that version.
 */
export interface SectionRead {
  readonly sessionId: string;
  active: boolean;
  /** A write to the session came from outside the section while its lock was read, it ran or its lock was kept: it answers nothing. */
  stale: boolean;
  version: string | undefined;
  projection: string | undefined;
  messages: Map<string, [number, string, string]> | undefined;
  row: SessionRow | undefined;
  open: Map<string, string> | undefined;
  calls: { turnId: string | undefined; step: number; bodies: Map<string, string> } | undefined;
  streaming: string[] | undefined;
}

/**
 * What the session's critical section read with its lock, kept for that section alone
 * (the code running inside it, through `AsyncLocalStorage`) and brought up to date by the
 * section's own writes, so its reads of the session, its open requests and its step's
 * calls cost no round trip. A next section that takes the lock over goes on with it, as if
 * the two were one section. It is only what a read at the section's start would have
 * answered: writes keep every guard in SQL and never rely on it.
 */
export class SectionReads {
  readonly #current = new AsyncLocalStorage<SectionRead>();
  /** Per session, the read of its running section, or of the one that ended keeping its lock (see `end`). */
  readonly #open = new Map<string, SectionRead>();
  /** Per session, the locks being read (see `reading`). */
  readonly #reading = new Map<string, Set<LockReading>>();

  /**
   * A section's lock is about to be read. A write from outside the sections that starts or
   * ends before the read opens (`open`) may have committed after the lock's snapshot: the
   * read is then stale from the start. `done` when the read failed.
   */
  reading(sessionId: string): LockReading {
    const reading: LockReading = {
      stale: false,
      done: () => {
        const pending = this.#reading.get(sessionId);
        pending?.delete(reading);
        if (pending?.size === 0) this.#reading.delete(sessionId);
      },
    };
    this.#reading.set(sessionId, (this.#reading.get(sessionId) ?? new Set()).add(reading));
    return reading;
  }

  /** A section's read of `sessionId` from its lock's row, read since `reading`. */
  open(sessionId: string, row: LockedRow | undefined, reading: LockReading): SectionRead {
    reading.done();
    const { stale } = reading;
    const read: SectionRead = row
      ? {
          sessionId,
          active: false,
          stale,
          version: row.version,
          projection: row.projection,
          messages: new Map((row.step_messages ?? []).map((message) => [message[1], message])),
          row,
          open: new Map((row.open_requests ?? []).map((body) => [requestIdOf(body), body])),
          calls: {
            ...stepOf(row.body),
            bodies: new Map((row.step_calls ?? []).map((body) => [toolCallIdOf(body), body])),
          },
          streaming: row.streaming ?? [],
        }
      : {
          sessionId,
          active: false,
          stale,
          version: undefined,
          projection: undefined,
          messages: undefined,
          row: undefined,
          open: new Map(),
          calls: undefined,
          streaming: [],
        };
    this.#open.set(sessionId, read);
    return read;
  }

  /** Runs `section` with `read`, a read opened for it or the one a section before it kept. */
  async continue<T>(read: SectionRead, section: () => Promise<T>): Promise<T> {
    read.active = true;
    try {
      return await this.#current.run(read, section);
    } finally {
      read.active = false;
    }
  }

  /**
   * `read`'s section ended. With `kept`, its lock is kept for a next section of the session,
   * which may go on with the read (`take`) unless a write to the session came from outside
   * its sections meanwhile.
   */
  end(read: SectionRead, kept: boolean): void {
    if (!kept && this.#open.get(read.sessionId) === read) this.#open.delete(read.sessionId);
  }

  /**
   * The read of `sessionId`'s last section, which kept its lock, for the next; `undefined`
   * when it no longer holds. A copy: code the last section started (and that inherited its
   * read) stays outside the next one.
   */
  take(sessionId: string): SectionRead | undefined {
    const read = this.#open.get(sessionId);
    if (!read || read.stale) {
      this.#open.delete(sessionId);
      return undefined;
    }
    const next = { ...read, active: false };
    this.#open.set(sessionId, next);
    return next;
  }

  /**
   * A write to `sessionId` starts or ends: unless it is in the session's section, the
   * section's read may miss it, so neither that section nor one after it goes on with it.
   */
  outside(sessionId: string): void {
    if (this.#of(sessionId)) return;
    const read = this.#open.get(sessionId);
    if (read) read.stale = true;
    for (const reading of this.#reading.get(sessionId) ?? []) reading.stale = true;
  }

  /** The running section's read of `sessionId`, when the caller runs inside that section and the read holds. */
  #of(sessionId: string): SectionRead | undefined {
    const read = this.#current.getStore();
    return read?.active && !read.stale && read.sessionId === sessionId ? read : undefined;
  }

  /**
   * The session's row (`null`: no such session), or `undefined` when it must be read. Outside
   * its sections too, while the last one keeps its lock and left the session waiting or idle:
   * then no turn runs, so every write to it waits for that lock (a turn's driver writes
   * without it), and the read with this process's writes is still the database's.
   */
  session(sessionId: string): SessionRow | null | undefined {
    const read = this.#of(sessionId) ?? this.#idle(sessionId);
    if (!read) return undefined;
    return read.row ?? (read.open ? null : undefined);
  }

  /** The read of the session's last section, which keeps its lock, when it left no turn running. */
  #idle(sessionId: string): SectionRead | undefined {
    const read = this.#open.get(sessionId);
    if (!read || read.active || read.stale || !read.row) return undefined;
    const { status } = JSON.parse(read.row.body) as SessionRecord;
    return status === "waiting" || status === "idle" ? read : undefined;
  }

  /** The session's open requests, or `undefined` when they must be read. */
  openRequests(sessionId: string): RequestRecord[] | undefined {
    const open = this.#of(sessionId)?.open;
    return open && [...open.values()].map((body) => JSON.parse(body) as RequestRecord);
  }

  /** An open request, or `undefined` when it must be read (it may be settled). */
  openRequest(sessionId: string, requestId: string): RequestRecord | undefined {
    const body = this.#of(sessionId)?.open?.get(requestId);
    return body === undefined ? undefined : (JSON.parse(body) as RequestRecord);
  }

  /** The calls of the session's step `step` of turn `turnId`, or `undefined` when they must be read. */
  toolCalls(sessionId: string, turnId: string, step: number): ToolCallRecord[] | undefined {
    const calls = this.#of(sessionId)?.calls;
    if (!calls || calls.turnId !== turnId || calls.step !== step) return undefined;
    return [...calls.bodies.values()].map((body) => JSON.parse(body) as ToolCallRecord);
  }

  /** The messages streaming in the session, or `undefined` when they must be read. */
  streaming(sessionId: string): string[] | undefined {
    const streaming = this.#of(sessionId)?.streaming;
    return streaming && [...streaming];
  }

  /**
   * What a write of `batch` would have read, when the section knows it all at a version of
   * the row: the write's statement then checks that version (and the lease) instead.
   * A message the batch starts (`started`) that the section does not know is taken to be
   * new (`fresh`): the statement inserts it and fails if it exists after all.
   * `undefined` when the write must read (a message or call it touches is not known, or a
   * request it requires open is not open).
   */
  rowForWrite(
    sessionId: string,
    batch: WriteBatch,
    messageIds: Set<string>,
    toolCallIds: string[],
    started: ReadonlySet<string>,
  ): { row: WriteRow; fresh: Set<string> } | undefined {
    const read = this.#of(sessionId);
    if (!read?.version || !read.row || !read.open || !read.calls || !read.messages || read.projection === undefined) {
      return undefined;
    }
    if ((batch.requireOpen ?? []).some((requestId) => !read.open!.has(requestId))) return undefined;
    const ids = new Set(messageIds);
    // As the read does: the messages of the stored calls the events name (a call of another step is not known).
    for (const toolCallId of toolCallIds) {
      const body = read.calls.bodies.get(toolCallId);
      if (body === undefined) return undefined;
      const { messageId } = JSON.parse(body) as ToolCallRecord;
      if (messageId) ids.add(messageId);
    }
    const touched: [number, string, string][] = [];
    const fresh = new Set<string>();
    for (const id of ids) {
      const message = read.messages.get(id);
      if (message) touched.push(message);
      else if (started.has(id)) fresh.add(id);
      else return undefined;
    }
    const { body, last_seq, transcript_len, owner } = read.row;
    const row: WriteRow = {
      version: read.version,
      status: (JSON.parse(body) as SessionRecord).status,
      body,
      last_seq,
      transcript_len,
      projection: read.projection,
      owner,
      settled: null,
      touched: touched.length > 0 ? touched : null,
      leased: true,
    };
    return { row, fresh };
  }

  /** The section wrote a batch to its session, with `change`. */
  wrote(sessionId: string, batch: WriteBatch, change: WriteChange): void {
    const read = this.#of(sessionId);
    if (!read) return;
    const { row, streaming } = change;
    if (read.version === change.basedOn && read.messages && read.projection !== undefined) {
      // Nothing else was written since the section's read: it is still the database's, with this write.
      read.version = change.version;
      read.projection = change.projection;
      for (const id of change.deleted) read.messages.delete(id);
      for (const { index, message } of change.upserts) {
        read.messages.set(message.id, [index, message.id, JSON.stringify(message)]);
      }
    } else {
      read.version = undefined;
      read.projection = undefined;
      read.messages = undefined;
    }
    read.row = row;
    for (const request of batch.requests ?? []) {
      if (request.state === "open") read.open?.set(request.requestId, JSON.stringify(request));
      else read.open?.delete(request.requestId);
    }
    const step = stepOf(row.body);
    if (read.calls && (read.calls.turnId !== step.turnId || read.calls.step !== step.step)) read.calls = undefined;
    for (const call of batch.toolCalls ?? []) {
      read.calls?.bodies.delete(call.toolCallId);
      if (call.turnId === read.calls?.turnId && call.step === read.calls.step) {
        read.calls.bodies.set(call.toolCallId, JSON.stringify(call));
      }
    }
    if (streaming !== "unchanged") read.streaming = streaming;
  }

  /** Another write came after the section's read: it still answers reads, but no write relies on it. */
  behind(sessionId: string): void {
    const read = this.#of(sessionId);
    if (read) read.version = undefined;
  }

  /** The section's read may no longer hold (a write was refused or failed, or the session was deleted): read again. */
  forget(sessionId: string): void {
    const read = this.#of(sessionId);
    if (!read) return;
    read.version = undefined;
    read.projection = undefined;
    read.messages = undefined;
    read.row = undefined;
    read.open = undefined;
    read.calls = undefined;
    read.streaming = undefined;
  }
}

function stepOf(body: string): { turnId: string | undefined; step: number } {
  const { turnId, step } = JSON.parse(body) as SessionRecord;
  return { turnId, step };
}

function requestIdOf(body: string): string {
  return (JSON.parse(body) as RequestRecord).requestId;
}

function toolCallIdOf(body: string): string {
  return (JSON.parse(body) as ToolCallRecord).toolCallId;
}
