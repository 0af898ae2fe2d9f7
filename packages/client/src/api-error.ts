import { ERROR_CODES, type ErrorCode, isErrorCode, ProtocolError, parseErrorBody } from "@hitl-kit/protocol";

/**
 * What the {@link ApiClient} throws: the wire error code (one of `ERROR_CODES`, or a newer
 * server's), the server's message and details, and the HTTP status that came back — `0`
 * when none did (`network`, `aborted`).
 * @example
 * try {
 *   await api.sendMessage(sessionId, "hello");
 * } catch (error) {
 *   if (error instanceof ApiError && error.code === "turn_running") await api.cancelTurn(sessionId);
 *   else throw error;
 * }
 */
export class ApiError extends ProtocolError {
  /** `"ApiError"`. */
  override readonly name: string = "ApiError";
  readonly #status: number;

  /**
   * @param code the wire code, or a client-only one (`network`, `aborted`, `bad_response`)
   * @param message what went wrong and, where there is one, the fix
   * @param options the HTTP status that came back (`0` for none) and the error's details
   */
  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    options: { status: number; details?: unknown; cause?: unknown },
  ) {
    super(code as ErrorCode, message, options.details);
    this.#status = options.status;
    if (options.cause !== undefined) this.cause = options.cause;
  }

  /** The HTTP status that came back; `0` when no answer did. */
  override get status(): number {
    return this.#status;
  }
}

/**
 * The error an error answer carries: its `{error: {code, message, details?}}`, or without
 * one (a proxy's page), the one code for its status (`bad_response` where there is no
 * single one, as for a bare 409). A bare 502 or 504 is `unavailable`, as a bare 503 is: a
 * proxy in front could not reach the server, or waited too long for it.
 */
export function errorOfResponse(status: number, body: unknown): ApiError {
  const parsed = parseErrorBody(body);
  if (parsed) {
    const { code, message, details } = parsed.error;
    return new ApiError(code, message, { status, ...(details === undefined ? {} : { details }) });
  }
  const codes = Object.entries(ERROR_CODES).filter(([, entry]) => entry.status === status);
  const single = codes.length === 1 && isErrorCode(codes[0]![0]) ? codes[0]![0] : "bad_response";
  const code = status === 502 || status === 504 ? "unavailable" : single;
  return new ApiError(code, `The server answered ${status} without a hitl-kit error body.`, { status });
}

/** A `network` error (the request failed before any answer came back), or `aborted` when `signal` aborted it. */
export function failedRequestError(url: string, cause: unknown, signal?: AbortSignal): ApiError {
  if (signal?.aborted) return new ApiError("aborted", `The request to ${url} was aborted.`, { status: 0, cause });
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ApiError("network", `Could not reach ${url} (${reason}); check the connection and try again.`, {
    status: 0,
    cause,
  });
}

/** A `bad_response` error: a 2xx answer whose body is not what the protocol says. */
export function badResponseError(what: string, status: number, cause: unknown): ApiError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const details = cause instanceof ProtocolError ? cause.details : undefined;
  return new ApiError("bad_response", `The server's ${what} is not the protocol's: ${reason}`, {
    status,
    cause,
    ...(details === undefined ? {} : { details }),
  });
}
