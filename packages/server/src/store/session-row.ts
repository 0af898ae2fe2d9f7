import type { SessionRecord } from "./records.js";

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
