import { PROTOCOL_VERSION_HEADER, ProtocolError } from "@hitl-kit/protocol";

const allowedMethods = "GET, HEAD, POST, DELETE";

/**
 * Which origins may call the handler from a browser, and the CORS answers for them.
 * Same-origin calls always pass; `allowedOrigins` adds others (a UI on another origin).
 * The check follows the Fetch Metadata approach (as Go's `CrossOriginProtection`):
 * `Sec-Fetch-Site` when the browser sends it, else `Origin` against the request's host
 * (its URL's or its `Host` header's);
 * a request with neither comes from no browser, so it cannot be a cross-site forgery.
 */
export class CrossOriginPolicy {
  readonly #allowed: Set<string>;

  /** @param onRefused told of each page origin refused (the page itself sees only a network error). */
  constructor(
    allowedOrigins: readonly string[] = [],
    private readonly onRefused: (origin: string) => void = () => {},
  ) {
    this.#allowed = new Set(allowedOrigins.map(normalizeOrigin));
  }

  /** The origin of a cross-origin request that is allowed to read the answer, if any. */
  allowedOrigin(request: Request): string | undefined {
    const origin = request.headers.get("origin");
    return origin !== null && this.#allowed.has(origin) ? origin : undefined;
  }

  /**
   * Refuses a state-changing request sent by a page of another origin that is not allowed.
   * @throws {ProtocolError} `forbidden` (403)
   */
  check(request: Request, url: URL): void {
    const origin = request.headers.get("origin");
    if (origin !== null && this.#allowed.has(origin)) return;
    const site = request.headers.get("sec-fetch-site");
    if (site !== null) {
      if (site === "same-origin" || site === "none") return;
      throw this.#refuse(origin ?? `a ${site} page`);
    }
    if (origin === null) return;
    if (sameHost(origin, request, url)) return;
    throw this.#refuse(origin);
  }

  #refuse(origin: string): ProtocolError {
    this.onRefused(origin);
    return crossSite(origin);
  }

  /** Headers that let an allowed origin read the answer (with credentials). */
  corsHeaders(origin: string): Record<string, string> {
    return {
      "access-control-allow-origin": origin,
      "access-control-allow-credentials": "true",
      "access-control-expose-headers": `retry-after, ${PROTOCOL_VERSION_HEADER}`,
      vary: "Origin",
    };
  }

  /** The answer to `OPTIONS`: a CORS preflight from an allowed origin, or the methods for anyone else. */
  preflight(request: Request, url: URL): Response {
    const origin = request.headers.get("origin");
    const allowed = this.allowedOrigin(request);
    if (origin !== null && !allowed && !sameHost(origin, request, url)) throw this.#refuse(origin);
    const headers: Record<string, string> = { allow: allowedMethods };
    if (allowed) {
      Object.assign(headers, {
        "access-control-allow-methods": allowedMethods,
        "access-control-allow-headers":
          request.headers.get("access-control-request-headers") ?? "content-type, last-event-id, idempotency-key",
        "access-control-max-age": "600",
      });
    }
    return new Response(null, { status: 204, headers });
  }
}

function normalizeOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(`allowedOrigins: "${origin}" is not an origin; write it as https://app.example.com.`);
  }
  if (url.origin === "null" || url.origin !== origin.replace(/\/$/, "")) {
    throw new TypeError(
      `allowedOrigins: "${origin}" is not an origin (scheme, host and port only, no path and no "*"); write it as ${url.origin === "null" ? "https://app.example.com" : url.origin}.`,
    );
  }
  return url.origin;
}

/**
 * Whether a page's origin names the host its request was sent to: the request URL's, or
 * the `Host` header the browser sent (as Go's `CrossOriginProtection` checks), since a
 * framework may build the URL with a host of its own (Next.js gives route handlers
 * `http://localhost:<port>/…` whatever the browser asked for).
 */
function sameHost(origin: string, request: Request, url: URL): boolean {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return origin !== "null" && (host === url.host || host === request.headers.get("host")?.toLowerCase());
}

function crossSite(origin: string): ProtocolError {
  return new ProtocolError(
    "forbidden",
    `Cross-origin request from ${origin} refused: state-changing requests must come from this server's origin or one in allowedOrigins.`,
  );
}
