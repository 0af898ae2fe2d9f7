import { ProtocolError } from "@hitl-kit/protocol";

/**
 * Says who is calling: the principal (a user id, an account id) the host app
 * authenticated, as a string, or `undefined`/`null` when the request carries no valid
 * credentials (the handler answers 401). Called for every request, an event stream's when it
 * opens. `platform` is what the server passed beside the request: with `toNodeHandler` (and
 * `serve`), `{ incoming }`, Node's request, which Express's `req` is (`req.user`,
 * `req.session`); its URL is as the server got it, before `trustProxy`.
 */
export type Identify = (
  request: Request,
  platform?: unknown,
) => string | null | undefined | Promise<string | null | undefined>;

/**
 * Who sent a request. `identified`: the host's {@link Identify} hook named the principal.
 * `anonymous`: no hook is configured, so the handler's own identity cookie names it;
 * `token` is that cookie's value, minted for this request when it had none (`minted`).
 */
export type Caller =
  | { kind: "identified"; principal: string }
  | { kind: "anonymous"; principal: string; token: string; minted: boolean };

/** The anonymous identity cookie's name over HTTPS (`__Host-`: only this host may set it) and over plain HTTP. */
export const identityCookie = { secure: "__Host-hitl-id", plain: "hitl-id" } as const;

const tokenShape = /^[A-Za-z0-9_-]{22}$/;
const maxAgeSeconds = 400 * 24 * 60 * 60; // the longest a browser keeps a cookie

/** Finds out who is calling: with the host's hook, or from the anonymous identity cookie. */
export async function identifyCaller(
  request: Request,
  platform: unknown,
  url: URL,
  identify: Identify | undefined,
): Promise<Caller> {
  if (identify) {
    const principal: unknown = await identify(request, platform);
    if (principal !== undefined && principal !== null && typeof principal !== "string") {
      // A user id straight from the database (a number, an object) would be refused as "not signed in" for everyone.
      throw new TypeError(
        `identify returned ${typeof principal === "object" ? "an object" : `a ${typeof principal} (${String(principal)})`}: it must return the principal as a string (String(user.id), say), or undefined when the request is not signed in.`,
      );
    }
    if (typeof principal !== "string" || principal === "") {
      throw new ProtocolError("unauthorized", "Sign in first: this server did not recognise who is calling.");
    }
    return { kind: "identified", principal };
  }
  const name = url.protocol === "https:" ? identityCookie.secure : identityCookie.plain;
  const given = readCookie(request.headers.get("cookie"), name);
  const token = given !== undefined && tokenShape.test(given) ? given : randomToken();
  return { kind: "anonymous", principal: await principalOf(token), token, minted: token !== given };
}

/**
 * The `Set-Cookie` value that keeps an anonymous caller's identity: `HttpOnly` (no script
 * reads it), `SameSite=Lax` (no cross-site POST carries it), `Secure` over HTTPS.
 */
export function identityCookieHeader(token: string, url: URL): string {
  const secure = url.protocol === "https:";
  const name = secure ? identityCookie.secure : identityCookie.plain;
  return `${name}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/**
 * The principal an anonymous token stands for: a hash of it, so the store never holds a
 * credential. It needs no state, so every server instance and every restart agrees.
 */
async function principalOf(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return `anon:${base64url(new Uint8Array(digest).subarray(0, 16))}`;
}

function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function readCookie(header: string | null, name: string): string | undefined {
  for (const pair of header?.split(";") ?? []) {
    const index = pair.indexOf("=");
    if (index !== -1 && pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim();
  }
  return undefined;
}
