import type { IncomingMessage, ServerResponse } from "node:http";
import { ProtocolError } from "@hitl-kit/protocol";
import { getRequestListener } from "@hono/node-server";
import { loggerOf } from "./handler-logger.js";
import { json } from "./json-response.js";

/** A Node `(req, res)` listener: what `http.createServer`, Express and Connect take. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * Where the adapter logs what it failed (a request it could not hand over, a body middleware
   * read before it). Default: the logger of the fetch handler it wraps (`createFetchHandler`'s
   * `logger`, or the runtime's), else `console` for a handler of your own.
   */
  logger?: Pick<Console, "warn" | "error">;
}

/** What Express and its body parsers add to Node's request. */
interface FrameworkRequest extends IncomingMessage {
  /** Express: the URL before a mount path (`app.use("/api/agent", …)`) was taken off `url`. */
  originalUrl?: string;
  /** A body parser's result (`express.json()`, `express.text()`, `express.raw()`). */
  body?: unknown;
  /** The body's bytes, where a platform kept them (Google Cloud Functions); `@hono/node-server` reads it. */
  rawBody?: unknown;
}

/**
 * Turns a fetch handler into a Node listener, for `node:http` and for the frameworks built
 * on it. In Express, mount it on its routes: `app.all("/api/agent/*splat", handler)` or
 * `app.use("/api/agent", handler)` — the full URL is used either way, so `basePath` stays
 * the public path. A body that `express.json()` (or `text`, or `raw`) parsed first is read
 * from `req.body`; put the handler before body parsers all the same, so that a malformed or
 * oversized body gets hitl-kit's JSON error rather than the parser's. Responses stream (an
 * event stream is written only as fast as the client reads it), several `Set-Cookie`
 * headers stay several, and the handler's second argument carries the connection
 * (`{ incoming }`), so rate limits key anonymous callers on their address.
 * @example
 * const app = express();
 * app.all("/api/agent/*splat", toNodeHandler(createFetchHandler(runtime)));
 * app.use(express.json()); // your own routes' parser, after hitl-kit's
 */
export function toNodeHandler(
  handler: (request: Request, platform?: unknown) => Response | Promise<Response>,
  options: NodeHandlerOptions = {},
): NodeHandler {
  const logger = options.logger ?? loggerOf(handler) ?? console;
  let bodyWarned = false;
  /** Something mounted before the handler read the body and kept nothing of it: a 500 that says what to move. */
  const sendBodyAlreadyRead = (response: ServerResponse) => {
    const message =
      "The request's body was read before hitl-kit's handler got it, and nothing kept it: " +
      "mount the handler before the middleware that reads bodies.";
    if (!bodyWarned) logger.error(`hitl-kit: ${message}`);
    bodyWarned = true;
    const body = new ProtocolError("internal", message);
    response.writeHead(body.status, { "content-type": "application/json" }).end(JSON.stringify(body.toBody()));
  };
  const listener = getRequestListener(handler, {
    overrideGlobalObjects: false,
    errorHandler: (error) => {
      const malformed = error instanceof Error && error.name === "RequestError";
      if (!malformed) logger.error("hitl-kit: unexpected error", error);
      const refusal = malformed
        ? new ProtocolError("bad_request", `The request is malformed: ${(error as Error).message}.`)
        : new ProtocolError("internal", "The server failed to handle this request.");
      return json(refusal.status, refusal.toBody());
    },
  });
  return async (request: FrameworkRequest, response) => {
    if (typeof request.originalUrl === "string") request.url = request.originalUrl;
    if (request.readableEnded && !(request.rawBody instanceof Buffer)) {
      const body = parsedBody(request.body);
      if (!body) return sendBodyAlreadyRead(response);
      request.rawBody = body;
    }
    await listener(request, response);
  };
}

/** The bytes of a body a parser already read, or `undefined` when it left nothing to read them from. */
function parsedBody(body: unknown): Buffer | undefined {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === "string") return Buffer.from(body);
  // `express.json()` parsed it: the same JSON again, which hitl-kit checks as it would the original.
  if (body !== null && typeof body === "object") return Buffer.from(JSON.stringify(body));
  return undefined;
}
