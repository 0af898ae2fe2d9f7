import type { EventInput, ProtocolEvent } from "@hitl-kit/protocol";
import type {
  ListSessionsOptions,
  RequestRecord,
  SessionCursor,
  TurnState,
  WriteBatch,
  WriteResult,
} from "./records.js";

/** Checks a batch's guards; returns the refusal, or `undefined` when the batch may apply. */
export function checkGuards(
  batch: WriteBatch,
  status: TurnState,
  getRequest: (requestId: string) => RequestRecord | undefined,
): Extract<WriteResult, { ok: false }> | undefined {
  if (batch.requireStatus && !batch.requireStatus.includes(status)) return { ok: false, reason: "status", status };
  if (!batch.requireOpen) return undefined;
  const settled = batch.requireOpen
    .map(getRequest)
    .filter((request): request is RequestRecord => request !== undefined && request.state !== "open");
  return settled.length > 0 ? { ok: false, reason: "settled", requests: settled } : undefined;
}

/** Gives a batch's events their envelope: consecutive seqs after `lastSeq`, the session and the time `at`. */
export function stampEvents(
  sessionId: string,
  lastSeq: number,
  at: string,
  events: EventInput[] = [],
): ProtocolEvent[] {
  return events.map((event, index) => ({ ...event, seq: lastSeq + index + 1, sessionId, at }) as ProtocolEvent);
}

/** The order of session lists: newest `createdAt` first, then `sessionId` descending. Negative when `a` comes first. */
export function compareSessions(a: SessionCursor, b: SessionCursor): number {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? -1 : 1;
  return a.sessionId === b.sessionId ? 0 : a.sessionId > b.sessionId ? -1 : 1;
}

/** The page of sessions a list answers, from records in any order. */
export function pageOfSessions<T extends SessionCursor & { owner?: string }>(
  sessions: Iterable<T>,
  { owner, limit = 50, after }: ListSessionsOptions,
): T[] {
  return [...sessions]
    .filter(
      (session) => (owner === undefined || session.owner === owner) && (!after || compareSessions(session, after) > 0),
    )
    .sort(compareSessions)
    .slice(0, limit);
}
