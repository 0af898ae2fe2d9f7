import { lastValue } from "./request-url.js";

/**
 * The address of the client that opened the connection, from what the platform passes
 * beside the request: `@hono/node-server` and this package's `serve` (`{ incoming }`),
 * Deno (`{ remoteAddr }`) or Bun (its server's `requestIP`). With `trustProxy`, the
 * address the nearest proxy appended to `X-Forwarded-For` instead. `undefined` when
 * none is known (a framework that does not pass it).
 */
export function clientAddress(request: Request, context: unknown, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = lastValue(request.headers.get("x-forwarded-for"));
    if (forwarded) return forwarded;
  }
  const platform = context as
    | {
        incoming?: { socket?: { remoteAddress?: string } };
        remoteAddr?: { hostname?: string };
        requestIP?: (request: Request) => { address?: string } | null;
      }
    | undefined;
  if (!platform || typeof platform !== "object") return undefined;
  return (
    platform.incoming?.socket?.remoteAddress ??
    platform.remoteAddr?.hostname ??
    (typeof platform.requestIP === "function" ? (platform.requestIP(request)?.address ?? undefined) : undefined)
  );
}
