import { ProtocolError } from "@hitl-kit/protocol";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { eventStream } from "./event-stream.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limiter.js";
import { readJson } from "./read-json.js";

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions {
  /** Where the routes live (default `/api/agent`). */
  basePath?: string;
  /**
   * Lets the host app require its own credentials. Called for every request with the
   * session id it addresses (`undefined` for creating or listing sessions); return
   * `false` for a 403, or a `Response` to answer with it. Without it, session ids —
   * 128 random bits — are the only credential.
   */
  authorize?: (request: Request, sessionId: string | undefined) => boolean | Response | Promise<boolean | Response>;
  /** The largest body accepted (default 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Milliseconds between heartbeat comments on idle event streams (default 15 000). */
  heartbeatMs?: number;
  /** Limits commands per session and client; past it, 429. Off by default. */
  rateLimit?: RateLimitOptions;
}

type Route = (request: Request, sessionId: string) => Promise<Response>;

/**
 * Serves wire protocol v1 as a web-standard `(Request) => Promise<Response>`: mount it in
 * any server that speaks fetch (Node via `serve`, Hono, Next.js route handlers, Bun, Deno).
 * Every error is JSON `{ error: { code, message, details? } }` with an honest status.
 * @example
 * const handler = createFetchHandler(runtime, { basePath: "/api/agent" });
 * serve(handler, { port: 3000 });
 */
export function createFetchHandler(runtime: AgentRuntime, options: FetchHandlerOptions = {}) {
  const base = (options.basePath ?? "/api/agent").replace(/\/+$/, "");
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;

  const sessionRoutes: Record<string, Partial<Record<string, Route>>> = {
    "": { GET: async (_request, id) => json(200, await runtime.getSnapshot(id)) },
    "/events": {
      GET: async (request, id) => {
        const after = afterSeq(request);
        await runtime.readEvents(id, Number.MAX_SAFE_INTEGER); // 404 for an unknown session, before streaming
        return new Response(eventStream(runtime, id, after, { heartbeatMs, signal: request.signal }), {
          headers: {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache, no-transform",
            connection: "keep-alive",
            "x-accel-buffering": "no",
          },
        });
      },
    },
    "/messages": {
      POST: async (request, id) => {
        const { text } = await readJson(request, "message", maxBytes);
        return json(202, await runtime.sendMessage(id, text));
      },
    },
    "/responses": {
      POST: async (request, id) => {
        const { responses } = await readJson(request, "responses", maxBytes);
        const result = await runtime.respond(id, responses);
        return json(result.status, { resolutions: result.resolutions });
      },
    },
    "/cancel": {
      POST: async (_request, id) => {
        await runtime.cancel(id);
        return json(202, {});
      },
    },
  };

  return async function handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path !== base && !path.startsWith(`${base}/`)) {
      return errorResponse(new ProtocolError("not_found", `No route ${path}; hitl-kit serves ${base}/sessions.`));
    }
    const rest = path.slice(base.length);
    try {
      if (rest === "/sessions") {
        await authorize(request, undefined);
        if (request.method === "POST") {
          await readJson(request, "createSession", maxBytes);
          return json(201, await runtime.createSession());
        }
        if (request.method === "GET") return json(200, { sessions: await runtime.listSessions() });
        throw methodNotAllowed(request, ["GET", "POST"]);
      }
      const match = /^\/sessions\/([^/]+)(\/[a-z]+)?$/.exec(rest);
      const routes = match && sessionRoutes[match[2] ?? ""];
      if (!match || !routes) throw new ProtocolError("not_found", `No route ${request.method} ${path}.`);
      const sessionId = decodeURIComponent(match[1]!);
      const route = routes[request.method];
      if (!route) throw methodNotAllowed(request, Object.keys(routes));
      await authorize(request, sessionId);
      if (request.method === "POST") limiter?.check(request, sessionId);
      return await route(request, sessionId);
    } catch (error) {
      if (error instanceof Response) return error;
      if (error instanceof ProtocolError) return errorResponse(error);
      console.error("hitl-kit: unexpected error", error);
      return errorResponse(new ProtocolError("internal", "The server failed to handle this request."));
    }
  };

  async function authorize(request: Request, sessionId: string | undefined): Promise<void> {
    if (!options.authorize) return;
    const verdict = await options.authorize(request, sessionId);
    if (verdict instanceof Response) throw verdict;
    if (!verdict) throw new ProtocolError("forbidden", "Not allowed to use this session.");
  }
}

function afterSeq(request: Request): number {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after") ?? "0";
  const seq = Number(raw);
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new ProtocolError("bad_request", `Last-Event-ID or ?after= must be a whole number, not "${raw}".`);
  }
  return seq;
}

function methodNotAllowed(request: Request, allowed: string[]): ProtocolError {
  return new ProtocolError("method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(" or ")}.`);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function errorResponse(error: ProtocolError): Response {
  return json(error.status, error.toBody());
}
