// The bodies of the commands a browser POSTs. The server checks them against JSON Schemas
// generated from the zod/mini definitions in scripts/wire-zod-schemas.ts.

/** The person's three ways to answer (MCP elicitation's outcomes). For an approval, accept approves and decline denies. */
export type ResponseAction = "accept" | "decline" | "cancel";

/** The person's answer to one `InputRequest`. `value` is required for `accept` of an input request. */
export interface InputResponse {
  /** The `InputRequest` answered. */
  requestId: string;
  /** Accept (with `value`), decline (with an optional `reason`) or cancel. */
  action: ResponseAction;
  /** The answer, checked against the request's `answerSchema`; an approval's is optional (`{ reason? }`). */
  value?: unknown;
  /** At most 10,000 characters. */
  reason?: string;
}

/** Body of `POST /sessions/:id/responses`: 1 to 100 responses, each to a different request. */
export interface RespondBody {
  /** The answers, at most one per request. */
  responses: InputResponse[];
}

/** Body of `POST /sessions/:id/messages`: text with something other than white space, at most 100,000 characters. */
export interface SendMessageBody {
  /** What the person wrote. */
  text: string;
}

/**
 * Whether `key` may be a message's `Idempotency-Key` header: 1 to 200 visible ASCII
 * characters (a UUID, say). Servers refuse others with `bad_request`.
 */
export function isIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,200}$/.test(key);
}

/** Body of `POST /sessions`: an object, `{}` today. */
export type CreateSessionBody = { [key: string]: unknown };

/**
 * Body of `POST /sessions/:id/cancel`: `{}` stops the session's current turn; `{turnId}`
 * stops that turn only, if it is still running or parked (so a cancel sent again, or from a
 * tab that has not seen a newer turn, never stops a later one). It is JSON only so that no
 * cross-site form can send it.
 */
export type CancelBody = { turnId?: string; [key: string]: unknown };
