import type { EventInput, ProtocolEvent } from "@hitl-kit/protocol";
import type { RequestRecord, TurnState, WriteBatch, WriteResult } from "./records.js";

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

/** Gives a batch's events their envelope: consecutive seqs after `lastSeq`, the session and the time. */
export function stampEvents(sessionId: string, lastSeq: number, events: EventInput[] = []): ProtocolEvent[] {
  const at = new Date().toISOString();
  return events.map((event, index) => ({ ...event, seq: lastSeq + index + 1, sessionId, at }) as ProtocolEvent);
}
