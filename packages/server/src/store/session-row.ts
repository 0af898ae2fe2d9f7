import type { SessionRecord, SessionSummary } from "./records.js";

/** A session's row as the SQL stores read it. */
export type SessionRow = {
  body: string;
  last_seq: number;
  owner: string | null;
  updated_at: string;
  transcript_len: number;
};

/** The session a row holds: its body, with the owner, last activity, last seq and transcript length kept in columns. */
export function fromRow(row: SessionRow): SessionRecord {
  return {
    ...(JSON.parse(row.body) as SessionRecord),
    ...(row.owner === null ? {} : { owner: row.owner }),
    updatedAt: row.updated_at,
    lastSeq: row.last_seq,
    transcriptLength: row.transcript_len,
  };
}

/** A listed session's summary, from its row and the count of its open requests. */
export function summaryOf(row: SessionRow & { pending: number }): SessionSummary {
  const { sessionId, createdAt, updatedAt, title, status, lastSeq } = fromRow(row);
  return {
    sessionId,
    createdAt,
    updatedAt,
    status,
    lastSeq,
    pending: Number(row.pending),
    ...(title === undefined ? {} : { title }),
  };
}
