import type { ErrorBody } from "./error-body.js";

/** The error codes hitl-kit answers with, and the HTTP status of each. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_resolved: 409,
  session_limit: 409,
  turn_running: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_answer: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
} as const;

/** A known error code. Clients should still accept codes they do not know. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error with a wire code, thrown by the server and the client alike. */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  /**
   * @param code the wire code; its status comes from {@link ERROR_STATUS}
   * @param message what went wrong and, where there is one, the fix
   * @param details structured detail, such as the list of validation issues
   */
  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** The HTTP status for this error's code (500 for a code hitl-kit does not know). */
  get status(): number {
    return ERROR_STATUS[this.code as ErrorCode] ?? 500;
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
