import { ProtocolError } from "@hitl-kit/protocol";
import { failureLine } from "../runtime/logged-error.js";
import { StoreUnavailable } from "../store/store-unavailable.js";

/**
 * A JSON response: a person's own data, so no cache keeps it (a CDN in front of the API,
 * a shared proxy) and no browser reads it as anything but JSON.
 */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });
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

/**
 * Logs what a request failed with: a store that cannot reach its database now and then, and
 * what no protocol error explains with the `request`'s method and path.
 */
export function reportFailure(error: unknown, log: FailureLog, request?: Request): void {
  if (error instanceof StoreUnavailable) log.outage(error);
  else if (!(error instanceof ProtocolError) && !(error instanceof Response)) {
    // The method and path say which request failed; its query and headers may hold what is nobody's to log.
    const where = request ? ` in ${request.method} ${new URL(request.url).pathname}` : "";
    log.logger.error(...failureLine(`hitl-kit: unexpected error${where}`, error));
  }
}

/**
 * The JSON error response for what was thrown: a `ProtocolError`, a `Response` (sent as it
 * is), a store that cannot reach its database (a 503, logged now and then), or anything
 * else (a 500, logged with the `request`'s method and path).
 */
export function errorResponse(error: unknown, log: FailureLog, request?: Request): Response {
  if (error instanceof Response) return error;
  reportFailure(error, log, request);
  if (error instanceof StoreUnavailable) {
    const message = error.lasting
      ? "This server cannot use its session store (its log says why); send the request again, for another instance to answer it."
      : "The server cannot reach its session store right now; send the request again.";
    return errorResponse(new ProtocolError("unavailable", message), log);
  }
  if (!(error instanceof ProtocolError)) {
    return errorResponse(new ProtocolError("internal", "The server failed to handle this request."), log);
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

/**
 * Where a handler logs the requests it failed. A database outage fails every request that
 * reaches the store: it is logged once, then at most every 10 s while it lasts, with how
 * many requests it failed in between.
 */
export class FailureLog {
  #at = Number.NEGATIVE_INFINITY;
  #since = 0;
  readonly #origins = new Set<string>();

  constructor(readonly logger: Pick<Console, "warn" | "error">) {}

  outage(error: StoreUnavailable): void {
    const now = Date.now();
    if (now - this.#at < 10_000) {
      this.#since += 1;
      return;
    }
    const more = this.#since > 0 ? ` (${this.#since} more since the last report)` : "";
    const until = error.lasting
      ? "this instance answers 503 to every request that needs it until that is fixed and it is restarted"
      : "requests that need it get 503 until it is back";
    this.logger.warn(`hitl-kit: ${error.message.replace(/\.$/, "")}; ${until}${more}.`);
    this.#at = now;
    this.#since = 0;
  }

  /** A page of another origin was refused: said once per origin (of the first 100), since its page sees only a network error. */
  refusedOrigin(origin: string): void {
    if (this.#origins.has(origin) || this.#origins.size >= 100) return;
    this.#origins.add(origin);
    this.logger.warn(
      `hitl-kit: refused requests from ${origin.startsWith("a ") ? origin : `the page at ${origin}`}: it is neither this server's origin nor in allowedOrigins. A page on another origin sees only a network error ("Failed to fetch"); if the page is yours, add its origin to allowedOrigins (behind a proxy, set trustProxy so that the server knows its own origin).`,
    );
  }
}
