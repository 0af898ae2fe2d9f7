import { ProtocolError } from "@hitl-kit/protocol";
import { type SnapshotPage, snapshotPageOf } from "../store/project-events.js";
import type { SessionCursor } from "../store/records.js";

/** The most sessions one page of `GET /sessions` holds. */
export const MAX_PAGE = 100;

/**
 * Reads `?limit=` (1–100, default 50) and `?cursor=` (from a previous page's `nextCursor`).
 * @throws {ProtocolError} `bad_request` naming the parameter
 */
export function readPageQuery(params: URLSearchParams): { limit: number; after?: SessionCursor } {
  const rawLimit = params.get("limit");
  const limit = rawLimit === null ? 50 : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : 0;
  if (limit < 1 || limit > MAX_PAGE) {
    throw new ProtocolError("bad_request", `?limit= must be a whole number from 1 to ${MAX_PAGE}, not "${rawLimit}".`);
  }
  const rawCursor = params.get("cursor");
  if (rawCursor === null) return { limit };
  return { limit, after: decodeCursor(rawCursor) };
}

/** The most messages one snapshot holds. */
export const MAX_MESSAGES = 200;

/**
 * Reads a snapshot's `?before=` (a previous snapshot's `before`) and `?limit=` (1–200
 * messages, default 50).
 * @throws {ProtocolError} `bad_request` naming the parameter
 */
export function readSnapshotQuery(params: URLSearchParams): SnapshotPage {
  const rawLimit = params.get("limit");
  const limit = rawLimit === null ? 50 : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : 0;
  if (limit < 1 || limit > MAX_MESSAGES) {
    throw new ProtocolError(
      "bad_request",
      `?limit= must be a whole number from 1 to ${MAX_MESSAGES}, not "${rawLimit}".`,
    );
  }
  const rawBefore = params.get("before");
  return snapshotPageOf({ limit, ...(rawBefore === null ? {} : { before: rawBefore }) });
}

/** The opaque `nextCursor` for the page after this session. */
export function encodeCursor({ createdAt, sessionId }: SessionCursor): string {
  return Buffer.from(JSON.stringify([createdAt, sessionId])).toString("base64url");
}

function decodeCursor(raw: string): SessionCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === "string")) {
      const [createdAt, sessionId] = parsed as [string, string];
      return { createdAt, sessionId };
    }
  } catch {
    // reported below
  }
  throw new ProtocolError(
    "bad_request",
    "?cursor= is not a cursor this server gave out; pass a page's nextCursor as it is.",
  );
}
