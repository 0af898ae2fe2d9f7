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

/**
 * What a rate limit counts one caller by: an IPv4 address as it is, an IPv6 address by its
 * /64 (one host or home network holds a whole /64, so counting each address would give it
 * countless budgets); an IPv4 address written as IPv6 (`::ffff:192.0.2.1`) as IPv4.
 */
export function addressBlock(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(":")) return bare;
  const [head = "", tail] = bare.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}
