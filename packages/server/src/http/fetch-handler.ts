import {
  isIdempotencyKey,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_HEADER,
  ProtocolError,
  type TakenMessages,
} from "@hitl-kit/protocol";
import type { AgentRuntime } from "../runtime/agent-runtime-types.js";
import { type Caller, type Identify, identifyCaller, identityCookieHeader } from "./caller.js";
import { addressBlock, clientAddress } from "./client-address.js";
import { CrossOriginPolicy } from "./cross-origin.js";
import { eventStream } from "./event-stream.js";
import { withLogger } from "./handler-logger.js";
import { errorResponse, FailureLog, json, reportFailure, withHeaders } from "./json-response.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limiter.js";
import { readJson } from "./read-json.js";
import { requestUrl } from "./request-url.js";
import { encodeCursor, readPageQuery, readSnapshotQuery } from "./session-page.js";
import { matchRoute, type SessionAction } from "./session-route.js";
import { recheckedSignal } from "./stream-recheck.js";
import { readTakenKeys } from "./taken-keys.js";

export type { SessionAction } from "./session-route.js";

/** What `authorize` decides on: who asks, to do what, to which session (none for `list` and `create`). */
export interface SessionAccess {
  /** Who asks: what `identify` returned, or the anonymous identity cookie's principal. */
  principal: string;
  /** What the request would do, from its route and method. */
  action: SessionAction;
  /** The session in the route; `undefined` for `list` and `create`. */
  sessionId: string | undefined;
  /** The incoming request (headers, URL), for checks of the host app's own. */
  request: Request;
}

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions {
  /** Where the routes live (default `/api/agent`). */
  basePath?: string;
  /**
   * Says who is calling (see {@link Identify}): return the principal the host app
   * authenticated, or nothing for a 401. Without it, the handler gives each browser an
   * anonymous identity in an `HttpOnly`, `SameSite=Lax` cookie. Either way, a session
   * belongs to the principal that created it, and anyone else gets 404 for it.
   */
  identify?: Identify;
  /**
   * A further check on every request, after `identify` and before the session's owner
   * is checked: return `false` for a 403, or a `Response` to answer with it.
   */
  authorize?: (access: SessionAccess) => boolean | Response | Promise<boolean | Response>;
  /**
   * Other origins whose pages may call the handler with credentials (a UI served from
   * elsewhere), such as `["https://app.example.com"]`. They get CORS answers, preflights
   * included; state-changing requests from any other origin get 403.
   */
  allowedOrigins?: readonly string[];
  /**
   * Behind a reverse proxy you trust: take the scheme and host from `X-Forwarded-Proto`
   * and `X-Forwarded-Host`, and the client's address from `X-Forwarded-For` (the entry
   * the nearest proxy added). Off by default: those headers are anyone's to forge.
   */
  trustProxy?: boolean;
  /** The largest body accepted (default 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Milliseconds between heartbeat comments on idle event streams (default 15 000). */
  heartbeatMs?: number;
  /**
   * How often an open event stream asks `identify` and `authorize` again, with the request
   * that opened it (default 60 000 ms; `Infinity` for never). When the answer is no longer
   * the principal who opened it (signed out, a session or token revoked or expired) or the
   * check throws, the stream ends; the client's reconnect then gets `401` or `403`. Without
   * `identify` and `authorize` nothing is checked: an anonymous identity does not expire.
   */
  recheckStreamsMs?: number;
  /** Per-caller limits on state-changing requests and session creation (on by default; `false` turns them off). */
  rateLimit?: RateLimitOptions | false;
  /**
   * Where the handler logs a request it failed (a 500, with its cause) and a session store
   * it cannot reach (its 503s, once and then at most every 10 s). Default: the runtime's
   * `logger`.
   */
  logger?: Pick<Console, "warn" | "error">;
}

/**
 * A web-standard handler. The optional second argument is what the platform passes beside
 * the request (`@hono/node-server`'s bindings, Deno's info, Bun's server): pass it on so
 * rate limits can key anonymous callers on their address.
 */
export type FetchHandler = (request: Request, platform?: unknown) => Promise<Response>;

/**
 * Serves the wire protocol (v2) as a web-standard `(Request) => Promise<Response>`: mount it in
 * any server that speaks fetch (Node via `serve`, Hono, Next.js route handlers, Bun, Deno).
 * Every answer carries the version it speaks in a `hitl-protocol` header.
 * Sessions belong to the principal that created it; state-changing requests must be JSON
 * from an allowed origin. Every error is JSON `{ error: { code, message, details? } }`
 * with an honest status.
 * @example
 * const handler = createFetchHandler(runtime, { identify: async (request) => (await auth(request))?.userId });
 * serve(handler, { port: 3000 });
 */
export function createFetchHandler(runtime: AgentRuntime, options: FetchHandlerOptions = {}): FetchHandler {
  const base = (options.basePath ?? "/api/agent").replace(/\/+$/, "");
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const recheckMs = options.recheckStreamsMs ?? 60_000;
  if (!(recheckMs > 0)) throw new TypeError("recheckStreamsMs must be a number of milliseconds above 0, or Infinity.");
  const trustProxy = options.trustProxy ?? false;
  const failures = new FailureLog(options.logger ?? runtime.logger);
  const origins = new CrossOriginPolicy(options.allowedOrigins, (origin) => failures.refusedOrigin(origin));
  const limiter = options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit);
  const owners = new Map<string, string | null>();

  async function answer(
    request: Request,
    platform: unknown,
    extra: Headers,
    counted: { undo?: () => void },
  ): Promise<Response> {
    const url = requestUrl(request, trustProxy);
    if (!url.pathname.startsWith(`${base}/`)) {
      throw new ProtocolError("not_found", `No route ${url.pathname}; hitl-kit serves ${base}/sessions.`);
    }
    const allowed = origins.allowedOrigin(request);
    if (allowed) for (const [name, value] of Object.entries(origins.corsHeaders(allowed))) extra.set(name, value);
    if (request.method === "OPTIONS") return origins.preflight(request, url);

    const method = request.method === "HEAD" ? "GET" : request.method;
    const route = matchRoute(url.pathname.slice(base.length), method, base);
    if (method !== "GET") origins.check(request, url);
    const caller = await identifyCaller(request, platform, url, options.identify);
    if (caller.kind === "anonymous" && request.headers.get("sec-fetch-site") === "cross-site") {
      // The browser neither keeps nor sends the identity cookie (SameSite=Lax) across sites:
      // every request would be a stranger's, and a new session nobody's.
      throw new ProtocolError(
        "forbidden",
        `This server knows people by a cookie, which the browser does not keep for a page on another site (${request.headers.get("origin") ?? "this page"}). Serve the page from the same site as this server (localhost and 127.0.0.1 are different sites), or sign people in with identify.`,
      );
    }
    if (method !== "GET" && limiter) {
      counted.undo = limiter.check(
        route.action === "create" ? "create" : "command",
        rateKey(caller, request, platform),
      );
    }
    await authorize({ principal: caller.principal, action: route.action, sessionId: route.sessionId, request });

    const { sessionId } = route;
    if (sessionId === undefined) {
      if (route.action === "list") {
        const { limit, after } = readPageQuery(url.searchParams);
        const page = await runtime.listSessions({
          owner: caller.principal,
          limit: limit + 1,
          ...(after ? { after } : {}),
        });
        const sessions = page.slice(0, limit);
        const more = page.length > limit;
        return json(200, { sessions, ...(more ? { nextCursor: encodeCursor(sessions.at(-1)!) } : {}) });
      }
      const key = idempotencyKey(request);
      await readJson(request, "createSession", maxBytes);
      const { sessionId, repeated } = await runtime.createSession({
        owner: caller.principal,
        ...(key === undefined ? {} : { key }),
      });
      if (caller.kind === "anonymous") extra.append("set-cookie", identityCookieHeader(caller.token, url));
      return json(repeated ? 200 : 201, { sessionId });
    }

    // Another principal's session answers exactly as a missing one: its existence does not leak.
    if ((await ownerOf(sessionId)) !== caller.principal) {
      throw new ProtocolError("not_found", `There is no session ${sessionId}.`);
    }
    switch (route.action) {
      case "read":
        if (route.taken) {
          const taken = await runtime.findTakenMessages(sessionId, readTakenKeys(url.searchParams));
          return json(200, { taken } satisfies TakenMessages);
        }
        return json(200, await runtime.getSnapshot(sessionId, readSnapshotQuery(url.searchParams)));
      case "stream": {
        const after = afterSeq(request, url);
        await runtime.readEvents(sessionId, Number.MAX_SAFE_INTEGER); // settles expired requests before streaming
        if (request.method === "HEAD") return streamResponse(null);
        const stillAllowed = async () => {
          const now = await identifyCaller(request, platform, url, options.identify);
          if (now.principal !== caller.principal) return false;
          await authorize({ principal: now.principal, action: "stream", sessionId, request });
          return true;
        };
        const checked = recheckedSignal(
          request.signal,
          options.identify || options.authorize ? recheckMs : Number.POSITIVE_INFINITY,
          stillAllowed,
        );
        // Per principal, even an anonymous one: an address may be a whole office behind
        // one NAT, and a principal streams only sessions it owns, which it creates within its limit.
        const closeStream = limiter?.openStream(`principal:${caller.principal}`);
        return streamResponse(
          eventStream(runtime, sessionId, after, {
            heartbeatMs,
            signal: checked.signal,
            onClose: () => {
              checked.stop();
              closeStream?.();
            },
            onFailure: (error) => reportFailure(error, failures, request),
          }),
        );
      }
      case "message": {
        const key = idempotencyKey(request);
        const { text } = await readJson(request, "message", maxBytes);
        const { turnId, repeated } = await runtime.sendMessage(sessionId, text, key === undefined ? {} : { key });
        return json(repeated ? 200 : 202, { turnId });
      }
      case "respond": {
        const { responses } = await readJson(request, "responses", maxBytes);
        const result = await runtime.respond(sessionId, responses);
        return json(result.status, { resolutions: result.resolutions });
      }
      case "cancel": {
        const { turnId } = await readJson(request, "cancel", maxBytes);
        await runtime.cancel(sessionId, turnId === undefined ? {} : { turnId });
        return json(202, {});
      }
      default: // "delete"
        await runtime.deleteSession(sessionId);
        owners.delete(sessionId);
        return new Response(null, { status: 204 });
    }
  }

  /**
   * The session's owner (`null` for none, `undefined` when there is no such session). A
   * session's owner never changes, so the last few thousand are kept: most requests name a
   * session seen a moment ago. A deleted one still in the map is refused by the runtime.
   */
  async function ownerOf(sessionId: string): Promise<string | null | undefined> {
    const known = owners.get(sessionId);
    if (known !== undefined) return known;
    const info = await runtime.getSessionInfo(sessionId);
    if (!info) return undefined;
    const owner = info.owner ?? null;
    if (owners.size >= OWNERS_KEPT) owners.delete(owners.keys().next().value!);
    owners.set(sessionId, owner);
    return owner;
  }

  async function authorize(access: SessionAccess): Promise<void> {
    if (!options.authorize) return;
    const verdict = await options.authorize(access);
    if (verdict instanceof Response) throw verdict;
    if (!verdict) throw new ProtocolError("forbidden", `Not allowed to ${access.action} here.`);
  }

  let toldNoAddress = false;
  function rateKey(caller: Caller, request: Request, platform: unknown): string {
    if (caller.kind === "identified") return `principal:${caller.principal}`;
    const address = clientAddress(request, platform, trustProxy);
    if (address === undefined && !toldNoAddress) {
      toldNoAddress = true;
      (options.logger ?? runtime.logger).warn(
        "hitl-kit: a request came with no client address (the framework passed none), so every caller without an identity shares one rate-limit budget: pass the platform's second argument on (handler(request, env)), or set trustProxy behind a proxy that sets X-Forwarded-For (a Next.js route handler has no address to pass: use trustProxy, or an identify that names each person, who then gets a budget of their own).",
      );
    }
    return `address:${address === undefined ? "unknown" : addressBlock(address)}`;
  }

  return withLogger(async function handle(request: Request, platform?: unknown) {
    // Every answer says the protocol it speaks, so a page older than the server can tell it must reload.
    const extra = new Headers({ [PROTOCOL_VERSION_HEADER]: String(PROTOCOL_VERSION) });
    let response: Response;
    const counted: { undo?: () => void } = {};
    try {
      response = await answer(request, platform, extra, counted);
    } catch (error) {
      response = errorResponse(error, failures, request);
      // Not served (the store is out of reach, the server is closing): the caller's retry is not a second request.
      if (response.status === 503) counted.undo?.();
    }
    if (request.method === "HEAD" && response.body) {
      await response.body.cancel();
      response = new Response(null, response);
    }
    return withHeaders(response, extra);
  }, failures.logger);
}

/**
 * The `Idempotency-Key` of a message or a session's creation, if it has one: 1 to 200
 * visible ASCII characters (a UUID, say), which the client sends again unchanged when it
 * resends the request.
 */
function idempotencyKey(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!isIdempotencyKey(key)) {
    throw new ProtocolError(
      "bad_request",
      "The Idempotency-Key header must be 1 to 200 visible ASCII characters, such as a UUID.",
    );
  }
  return key;
}

/** `Last-Event-ID` or `?after=`: plain decimal digits only (no sign, exponent, hex or spaces). */
function afterSeq(request: Request, url: URL): number {
  const raw = request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0";
  const seq = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isNaN(seq)) {
    throw new ProtocolError(
      "bad_request",
      `Last-Event-ID or ?after= must be a whole number in decimal digits, not "${raw}".`,
    );
  }
  return seq;
}

/** An event stream's answer; `null` for a `HEAD`. */
function streamResponse(body: ReadableStream<Uint8Array> | null): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

/** How many sessions' owners a handler keeps. */
const OWNERS_KEPT = 10_000;
