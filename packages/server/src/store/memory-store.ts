import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { checkGuards, pageOfSessions, stampEvents } from "./apply-batch.js";
import type { RequestRecord, SessionRecord, SessionStore, ToolCallRecord, WriteBatch, WriteResult } from "./records.js";

interface MemorySession {
  record: SessionRecord;
  events: ProtocolEvent[];
  transcript: LanguageModelV4Message[];
  toolCalls: Map<string, ToolCallRecord>;
  requests: Map<string, RequestRecord>;
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

  return {
    async createSession(session) {
      if (sessions.has(session.sessionId)) throw new Error(`Session ${session.sessionId} exists already.`);
      sessions.set(session.sessionId, {
        record: { ...clone(session), updatedAt: session.createdAt, lastSeq: 0 },
        events: [],
        transcript: [],
        toolCalls: new Map(),
        requests: new Map(),
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
    async readTranscript(sessionId) {
      return clone(sessions.get(sessionId)?.transcript ?? []);
    },
    async getToolCalls(sessionId, turnId) {
      const calls = [...(sessions.get(sessionId)?.toolCalls.values() ?? [])];
      return clone(calls.filter((call) => call.turnId === turnId));
    },
    async getRequest(sessionId, requestId) {
      const request = sessions.get(sessionId)?.requests.get(requestId);
      return request && clone(request);
    },
    async getOpenRequests(sessionId) {
      const requests = [...(sessions.get(sessionId)?.requests.values() ?? [])];
      return clone(requests.filter((request) => request.state === "open"));
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
      session.record = {
        ...session.record,
        ...clone(batch.session),
        updatedAt: at,
        lastSeq: session.record.lastSeq + events.length,
      };
      if (batch.transcript) session.transcript.push(...clone(batch.transcript));
      for (const call of batch.toolCalls ?? []) session.toolCalls.set(call.toolCallId, clone(call));
      for (const request of batch.requests ?? []) session.requests.set(request.requestId, clone(request));
      return { ok: true, events };
    },
    async close() {},
  };
}
