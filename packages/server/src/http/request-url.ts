import { ProtocolError } from "@hitl-kit/protocol";

/** A `host[:port]`: a DNS name or IPv4 address, or an IPv6 address in brackets, and an optional port. */
const validHost = /^(?:[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The URL the client asked for. It is the request's own URL — whose scheme the server
 * adapter knows (https when it terminates TLS) — except that with `trustProxy` the
 * scheme and host come from the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host`
 * (the last value of each, the one the nearest proxy set).
 * @throws {ProtocolError} `bad_request` for a malformed `Host` or `X-Forwarded-Host`
 */
export function requestUrl(request: Request, trustProxy: boolean): URL {
  const url = new URL(request.url);
  const host = request.headers.get("host");
  if (host !== null && !validHost.test(host)) throw badHost("Host", host);
  if (!trustProxy) return url;
  const forwardedHost = lastValue(request.headers.get("x-forwarded-host"));
  const forwardedProto = lastValue(request.headers.get("x-forwarded-proto"))?.toLowerCase();
  if (forwardedHost !== undefined) {
    if (!validHost.test(forwardedHost)) throw badHost("X-Forwarded-Host", forwardedHost);
    url.host = forwardedHost;
    // The host setter keeps the URL's port when the value names none (nginx's `$host` names none).
    if (!/:\d+$/.test(forwardedHost)) url.port = "";
  }
  if (forwardedProto === "https" || forwardedProto === "http") url.protocol = `${forwardedProto}:`;
  return url;
}

/** The last entry of a comma-separated header: the one the nearest proxy added. */
export function lastValue(header: string | null): string | undefined {
  const value = header?.split(",").at(-1)?.trim();
  return value || undefined;
}

function badHost(name: string, value: string): ProtocolError {
  return new ProtocolError(
    "bad_request",
    `The ${name} header is not a valid host: ${JSON.stringify(value.slice(0, 100))}.`,
  );
}
