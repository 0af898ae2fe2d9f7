import { ProtocolError } from "@hitl-kit/protocol";

/** A JSON response. */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** The response with `extra` headers added (several `Set-Cookie`s stay several); a host's Response with immutable headers is copied. */
export function withHeaders(response: Response, extra: Headers): Response {
  let target = response;
  const add = (name: string, value: string) =>
    name === "set-cookie" ? target.headers.append(name, value) : target.headers.set(name, value);
  for (const [name, value] of extra) {
    try {
      add(name, value);
    } catch {
      target = new Response(target.body, target);
      add(name, value);
    }
  }
  return target;
}

/** The JSON error response for what was thrown: a `ProtocolError`, a `Response` (sent as it is), or anything else (a 500, logged). */
export function errorResponse(error: unknown): Response {
  if (error instanceof Response) return error;
  if (!(error instanceof ProtocolError)) {
    console.error("hitl-kit: unexpected error", error);
    return errorResponse(new ProtocolError("internal", "The server failed to handle this request."));
  }
  // A client-only code (status 0) is no answer a server can send: it is the server's failure.
  const response = json(error.status >= 400 ? error.status : 500, error.toBody());
  const details = error.details as { retryAfterSeconds?: number; allow?: string[] } | undefined;
  if (error.code === "rate_limited" && details?.retryAfterSeconds) {
    response.headers.set("retry-after", String(details.retryAfterSeconds));
  }
  if (error.code === "method_not_allowed" && details?.allow) response.headers.set("allow", details.allow.join(", "));
  return response;
}
