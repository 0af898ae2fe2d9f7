import { ProtocolError, parseErrorBody } from "@hitl-kit/protocol";

/** A `fetch`-compatible function. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

const codeOfStatus: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "invalid_answer",
  429: "rate_limited",
};

/**
 * Sends a request and reads its JSON answer.
 * @throws {ProtocolError} with the server's code, message and details for a non-2xx
 * answer, or code `network` when no answer came back
 */
export async function requestJson(
  fetch: FetchLike,
  url: string,
  init: RequestInit,
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    text = await response.text();
  } catch (error) {
    throw networkError(url, error);
  }
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw errorOfResponse(response.status, body);
  return { status: response.status, body };
}

/** The `ProtocolError` an error answer carries, or one named after its status. */
export function errorOfResponse(status: number, body: unknown): ProtocolError {
  const parsed = parseErrorBody(body);
  if (parsed) return new ProtocolError(parsed.error.code, parsed.error.message, parsed.error.details);
  const code = codeOfStatus[status] ?? (status >= 500 ? "internal" : "http_error");
  return new ProtocolError(code, `The server answered ${status} without an error body.`);
}

/** A `network` error: the request failed before any answer came back. */
export function networkError(url: string, cause: unknown): ProtocolError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ProtocolError("network", `Could not reach ${url} (${reason}); check the connection and try again.`);
}
