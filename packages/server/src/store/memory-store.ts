import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { checkGuards, pageOfSessions, stampEvents } from "./apply-batch.js";
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
import type { RequestRecord, SessionRecord, SessionStore, ToolCallRecord, WriteBatch, WriteResult } from "./records.js";

interface MemorySession {
  record: SessionRecord;
  events: ProtocolEvent[];
  transcript: LanguageModelV4Message[];
  toolCalls: Map<string, ToolCallRecord>;
  requests: Map<string, RequestRecord>;
  projection: ProjectionState;
  /** The projected messages, ordered by position. */
  messages: ProjectedMessage[];
  /** Each message's position. */
  positions: Map<string, number>;
  /** The turn each keyed message started, by its key. */
  keyedTurns: Map<string, string>;
}

/** Where the message at `index` is in messages ordered by position (binary search), or -1. */
function slotOf(messages: readonly ProjectedMessage[], index: number | undefined): number {
  if (index === undefined) return -1;
  let low = 0;
  let high = messages.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = messages[middle]!.index;
    if (found === index) return middle;
    if (found < index) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** How many of the messages ordered by position come before `index`. */
function countBefore(messages: readonly ProjectedMessage[], index: number): number {
  let low = 0;
  let high = messages.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (messages[middle]!.index < index) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A store that keeps everything in this process's memory: for tests and stories. It
 * honours the whole {@link SessionStore} contract except durability across restarts.
 * @example
 * const runtime = createAgentRuntime({ model, tools, store: memoryStore() });
 */
export function memoryStore(): SessionStore {
  const sessions = new Map<string, MemorySession>();
  const clone = <T>(value: T): T => structuredClone(value);
  const openRequestsOf = (sessionId: string) =>
    [...(sessions.get(sessionId)?.requests.values() ?? [])].filter((request) => request.state === "open");

  function project(session: MemorySession, events: ProtocolEvent[]): void {
    const { messageIds, toolCallIds } = messagesTouchedBy(events);
    const ids = new Set(messageIds);
    for (const id of toolCallIds) {
      const messageId = session.toolCalls.get(id)?.messageId;
      if (messageId) ids.add(messageId);
    }
    const at = (id: string) => slotOf(session.messages, session.positions.get(id));
    const touched = [...ids].flatMap((id) => session.messages[at(id)] ?? []);
    const change = projectEvents(session.projection, touched, events);
    session.projection = change.state;
    for (const entry of change.upserts) {
      const slot = at(entry.message.id);
      if (slot >= 0) session.messages[slot] = entry;
      else session.messages.push(entry); // new messages take the next, highest positions
      session.positions.set(entry.message.id, entry.index);
    }
    for (const id of change.deleted) {
      session.messages.splice(at(id), 1);
      session.positions.delete(id);
    }
  }

  return {
    async createSession(session) {
      if (sessions.has(session.sessionId)) throw new Error(`Session ${session.sessionId} exists already.`);
      sessions.set(session.sessionId, {
        record: { ...clone(session), updatedAt: session.createdAt, lastSeq: 0, transcriptLength: 0 },
        events: [],
        transcript: [],
        toolCalls: new Map(),
        requests: new Map(),
        projection: emptyProjection,
        messages: [],
        positions: new Map(),
        keyedTurns: new Map(),
      });
    },
    async getSession(sessionId) {
      const session = sessions.get(sessionId);
      return session && clone(session.record);
    },
    async listSessions(options = {}) {
      const records = [...sessions.values()].map(({ record }) => record);
      return pageOfSessions(records, options).map(({ sessionId, createdAt, updatedAt, title, status, lastSeq }) => ({
        sessionId,
        createdAt,
        updatedAt,
        status,
        lastSeq,
        pending: openRequestsOf(sessionId).length,
        ...(title === undefined ? {} : { title }),
      }));
    },
    async countSessions(owner) {
      let count = 0;
      for (const { record } of sessions.values()) if (record.owner === owner) count += 1;
      return count;
    },
    async deleteSession(sessionId) {
      return sessions.delete(sessionId);
    },
    async listIdleSessions(updatedBefore, limit = 100) {
      return [...sessions.values()]
        .map(({ record }) => record)
        .filter((record) => record.updatedAt < updatedBefore)
        .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0))
        .slice(0, limit)
        .map((record) => record.sessionId);
    },
    async readEvents(sessionId, afterSeq, limit = Number.POSITIVE_INFINITY) {
      const events = sessions.get(sessionId)?.events ?? [];
      // seq n is at index n - 1: events are numbered from 1 without gaps.
      return events.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit);
    },
    async readSnapshot(sessionId, { before = Number.POSITIVE_INFINITY, limit = SNAPSHOT_PAGE } = {}) {
      const session = sessions.get(sessionId);
      if (!session) return undefined;
      const end = countBefore(session.messages, before);
      const page = session.messages.slice(Math.max(0, end - limit), end);
      const settled = requestIdsOf(page).flatMap((id) => session.requests.get(id) ?? []);
      const olderExist = end > page.length;
      return clone(snapshotOf(sessionId, session.record.lastSeq, session.projection, page, olderExist, settled));
    },
    async streamingMessageIds(sessionId) {
      return [...(sessions.get(sessionId)?.projection.streaming ?? [])];
    },
    async readTranscript(sessionId, from = 0) {
      return clone(sessions.get(sessionId)?.transcript.slice(from) ?? []);
    },
    async getToolCalls(sessionId, turnId, step) {
      const calls = [...(sessions.get(sessionId)?.toolCalls.values() ?? [])];
      return clone(
        calls.filter((call) => call.turnId === turnId && call.step === step).sort((a, b) => a.index - b.index),
      );
    },
    async getRequest(sessionId, requestId) {
      const request = sessions.get(sessionId)?.requests.get(requestId);
      return request && clone(request);
    },
    async getOpenRequests(sessionId) {
      return clone(openRequestsOf(sessionId));
    },
    async findKeyedTurn(sessionId, key) {
      return sessions.get(sessionId)?.keyedTurns.get(key);
    },
    async listSessionsToRecover() {
      return [...sessions.values()]
        .filter(({ record }) => record.status === "running" || record.status === "resuming")
        .map(({ record }) => record.sessionId);
    },
    async listExpiredRequests(now, limit = 100) {
      const due: { sessionId: string; requestId: string }[] = [];
      for (const [sessionId, session] of sessions) {
        for (const request of session.requests.values()) {
          if (request.state === "open" && request.expiresAt !== undefined && request.expiresAt <= now) {
            due.push({ sessionId, requestId: request.requestId });
            if (due.length >= limit) return due;
          }
        }
      }
      return due;
    },
    async nextExpiry() {
      let next: number | undefined;
      for (const session of sessions.values()) {
        for (const request of session.requests.values()) {
          if (request.state !== "open" || request.expiresAt === undefined) continue;
          if (next === undefined || request.expiresAt < next) next = request.expiresAt;
        }
      }
      return next;
    },
    async write(sessionId, batch: WriteBatch): Promise<WriteResult> {
      const session = sessions.get(sessionId);
      if (!session) return { ok: false, reason: "not_found" };
      const refused = checkGuards(batch, session.record.status, (id) => session.requests.get(id));
      if (refused) return clone(refused);
      const at = new Date().toISOString();
      const events = stampEvents(sessionId, session.record.lastSeq, at, batch.events);
      session.events.push(...events);
      for (const event of events) {
        if (event.type === "turn.started" && event.idempotencyKey)
          session.keyedTurns.set(event.idempotencyKey, event.turnId);
      }
      if (batch.transcript) session.transcript.push(...clone(batch.transcript));
      session.record = {
        ...session.record,
        ...clone(batch.session),
        updatedAt: at,
        lastSeq: session.record.lastSeq + events.length,
        transcriptLength: session.transcript.length,
      };
      for (const call of batch.toolCalls ?? []) session.toolCalls.set(call.toolCallId, clone(call));
      for (const request of batch.requests ?? []) session.requests.set(request.requestId, clone(request));
      project(session, events);
      return { ok: true, events };
    },
    async close() {},
  };
}
