import type { ErrorBody } from "./error-body.js";

/**
 * Every error code of hitl-kit, server and client alike, with its HTTP status and who
 * produces it. `server` codes travel on the wire as `{error: {code, message, details?}}`
 * with that status; `client` codes are never sent by a server: a client reports them when
 * no protocol answer came back (status `0`), or when what came back was not the protocol's
 * (`bad_response`, which keeps the status it received). docs/errors.md explains each code
 * and what a caller should do.
 * @example
 * ERROR_CODES.turn_running; // { status: 409, side: "server" }
 * ERROR_CODES.network; // { status: 0, side: "client" }
 */
export const ERROR_CODES = {
  /** The request is malformed: a body, query parameter or header the protocol does not accept. */
  bad_request: { status: 400, side: "server" },
  /** The host's `identify` hook found no principal. */
  unauthorized: { status: 401, side: "server" },
  /** A cross-site state-changing request, or the host's `authorize` hook said no. */
  forbidden: { status: 403, side: "server" },
  /** No such route, session or request (another principal's session answers this too). */
  not_found: { status: 404, side: "server" },
  /** The route exists, the method does not (the answer's `Allow` header lists those that do). */
  method_not_allowed: { status: 405, side: "server" },
  /** The request was already settled with a different answer; `details.resolution` holds it. */
  already_resolved: { status: 409, side: "server" },
  /** The principal already has as many sessions as the server allows; `details.limit` says how many. */
  session_limit: { status: 409, side: "server" },
  /** The session's turn is running: a message must wait until it ends (or stop it first). */
  turn_running: { status: 409, side: "server" },
  /** The body is larger than the server accepts. */
  payload_too_large: { status: 413, side: "server" },
  /** A state-changing request without `Content-Type: application/json`. */
  unsupported_media_type: { status: 415, side: "server" },
  /** The answer fails the request's answer schema; `details` lists each issue, and the request stays open. */
  invalid_answer: { status: 422, side: "server" },
  /** Too many requests; `details.retryAfterSeconds` (and the `Retry-After` header) say when to try again. */
  rate_limited: { status: 429, side: "server" },
  /** The request's headers are too large. */
  headers_too_large: { status: 431, side: "server" },
  /** The server failed to handle the request. */
  internal: { status: 500, side: "server" },
  /** The server is shutting down (its runtime was closed): send the request again, and another instance, or this one restarted, answers it. */
  unavailable: { status: 503, side: "server" },
  /** Client only: the request failed before any answer came back (offline, refused, DNS, CORS). */
  network: { status: 0, side: "client" },
  /** Client only: the caller aborted the request (its `AbortSignal`). */
  aborted: { status: 0, side: "client" },
  /**
   * Client only: an answer that is not the protocol's — an error status without an error
   * body (a proxy's page), a 2xx whose body does not decode, an undecodable event.
   */
  bad_response: { status: 0, side: "client" },
  /**
   * Client only: the server speaks a newer wire protocol than this client (its
   * `hitl-protocol` header says so): the page must be reloaded to get a client that reads it.
   */
  client_outdated: { status: 0, side: "client" },
} as const satisfies Record<string, { status: number; side: "server" | "client" }>;

/** A known error code. Clients should still accept codes they do not know (a newer server's). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** A code a server answers with. */
export type ServerErrorCode = {
  [Code in ErrorCode]: (typeof ERROR_CODES)[Code]["side"] extends "server" ? Code : never;
}[ErrorCode];

/** A code only a client reports: `network`, `aborted`, `bad_response`, `client_outdated`. */
export type ClientErrorCode = Exclude<ErrorCode, ServerErrorCode>;

/** Whether `code` is one of {@link ERROR_CODES}. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** What marks a `ProtocolError` of any copy of this package: the same symbol in every copy. */
const protocolErrorMark = Symbol.for("@hitl-kit/protocol.ProtocolError");

/**
 * An error with a wire code, thrown by the server and the client alike. `instanceof
 * ProtocolError` holds for one made by another copy of this package too (an app and a
 * hitl-kit package on two versions of it), so neither takes the other's for an unknown error.
 */
export class ProtocolError extends Error {
  /** Whether `value` is a `ProtocolError` of any copy of this package (a subclass's `instanceof` is the usual one). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked, which may be a subclass
    if (this !== ProtocolError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && protocolErrorMark in value;
  }

  /** Marks it for every copy of this package (see the class's `instanceof`). */
  get [protocolErrorMark](): true {
    return true;
  }

  /** `"ProtocolError"` (`"ApiError"` for the client's subclass). */
  override readonly name: string = "ProtocolError";
  /** The error's code: one of {@link ERROR_CODES}, or a newer server's code this version does not know. */
  readonly code: ErrorCode | (string & {});
  /** Structured detail: the issues of an `invalid_answer`, the resolution of an `already_resolved`, … */
  readonly details: unknown;

  /**
   * @param code one of {@link ERROR_CODES}; its status comes from there
   * @param message what went wrong and, where there is one, the fix
   * @param details structured detail, such as the list of validation issues
   */
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** The HTTP status for this error's code (500 for a code this version does not know). */
  get status(): number {
    return isErrorCode(this.code) ? ERROR_CODES[this.code].status : 500;
  }

  /** The wire body of this error. */
  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}
