import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER, ProtocolError } from "@hitl-kit/protocol";
import { setImmediate } from "../runtime/event-loop.js";
import { MAX_TIMER_MS } from "../runtime/model-step.js";
import { loggerOf } from "./handler-logger.js";
import { type NodeHandlerOptions, toNodeHandler } from "./node-handler.js";

/** Options of {@link serve}. */
export interface ServeOptions {
  /** The port (default 3000; 0 picks a free one). */
  port?: number;
  /** The address to bind (default 127.0.0.1: only this machine can connect). */
  host?: string;
  /** Serve HTTPS with this key and certificate (`{ key, cert }`, as `node:https` takes them); request URLs then say `https:`. */
  tls?: Pick<HttpsServerOptions, "key" | "cert" | "ca" | "passphrase">;
  /** Where the adapter logs what it failed; default: the fetch handler's logger (see {@link NodeHandlerOptions.logger}). */
  logger?: Pick<Console, "warn" | "error">;
  /**
   * How long a kept-alive connection may sit idle before the server closes it (default
   * 65,000 ms). Behind a balancer, keep it longer than the balancer's own idle timeout (an
   * AWS ALB's and nginx's upstream keepalive are 60 s), so the balancer always closes first:
   * with Node's 5 s, the balancer can send a request on a connection the server is closing,
   * and answers it 502.
   */
  keepAliveTimeoutMs?: number;
}

/** A running server. */
export interface Served {
  /** Where it listens, such as `http://127.0.0.1:3000`. */
  url: string;
  /** The port it listens on: the one asked for, or the free one picked for port 0. */
  port: number;
  /**
   * Closes gracefully: stops accepting connections, ends every event stream (cleanly, so
   * browsers reconnect, through a balancer to another instance, and resume after the last
   * event they got), lets the requests in flight finish (a POST mid-way gets its reply), and
   * closes each connection once its response is sent; one that has sent no request yet (a
   * browser's preconnect) is closed at once. Connections still open after `timeoutMs` are
   * dropped, so it resolves within that bound.
   * @example
   * process.once("SIGTERM", async () => {
   *   await served.close({ timeoutMs: 5_000 });
   *   await runtime.close({ timeoutMs: 20_000 });
   * });
   */
  close(options?: ServeCloseOptions): Promise<void>;
}

/** Options of {@link Served.close}. */
export interface ServeCloseOptions {
  /** The longest the requests in flight may take to finish before their connections are dropped (default 5,000 ms). */
  timeoutMs?: number;
}

/** How long `close()` lets the requests in flight finish, by default. */
const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** How long a kept-alive connection may idle, by default: above a balancer's usual 60 s. */
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Serves a fetch handler on Node's http (or https) module through `@hono/node-server`:
 * a response body is written only as fast as the client reads it (a slow event-stream
 * reader costs no memory), several `Set-Cookie` headers stay several, a body the handler
 * did not read (a 413) is drained so the kept-alive connection stays usable, and a request
 * Node cannot turn into a URL (a malformed `Host`) gets a JSON 400. The handler's second
 * argument carries the connection (`{ incoming }`), for rate limits by address.
 * @example
 * const { url } = await serve(createFetchHandler(runtime), { port: 3000 });
 */
export async function serve(
  handler: (request: Request, platform?: unknown) => Response | Promise<Response>,
  options: ServeOptions = {},
): Promise<Served> {
  const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  if (!(keepAliveTimeoutMs > 0 && keepAliveTimeoutMs <= MAX_TIMER_MS)) {
    throw new RangeError(
      `serve()'s keepAliveTimeoutMs must be a positive number of milliseconds, not ${keepAliveTimeoutMs}.`,
    );
  }
  // Aborted by `close()`: it ends the event streams being served, each listening to it while open.
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const endingStreams = async (request: Request, platform?: unknown) => {
    const response = await handler(request, platform);
    return isEventStream(response) ? endedBy(response, closing.signal) : response;
  };
  const nodeListener = toNodeHandler(endingStreams, {
    logger: options.logger ?? loggerOf(handler) ?? console,
  });
  // Responses being written, so `close()` can have their connections closed once they are sent.
  const inFlight = new Set<ServerResponse>();
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    // A request that reached a connection kept alive while the server closes is served all the same.
    if (closing.signal.aborted) response.shouldKeepAlive = false;
    inFlight.add(response);
    response.once("close", () => inFlight.delete(response));
    response.once("finish", () => {
      if (closing.signal.aborted) setImmediate(() => server.closeIdleConnections());
    });
    return nodeListener(request, response);
  };
  const server = options.tls ? createHttpsServer(options.tls, listener) : createServer(listener);
  // (Node 20+ times a request's headers from its first byte: an idle connection is not cut by `headersTimeout`.)
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // Connections, so `close()` can end at once those that have sent nothing yet (a browser's
  // preconnect, a client's spare socket): Node 20 and 22 wait for the client to close them,
  // which holds `close()` until `timeoutMs`. (A TLS socket counts the bytes after its handshake.)
  const connections = new Set<Socket>();
  server.on(options.tls ? "secureConnection" : "connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });
  // What Node's HTTP parser refuses never reaches the handler: answer it in JSON too, saying
  // the wire version as the handler's answers do.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const refusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new ProtocolError("headers_too_large", "The request's headers are too large.")
        : new ProtocolError("bad_request", `The request is not valid HTTP (${error.code ?? error.message}).`);
    const body = JSON.stringify(refusal.toBody());
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.status === 431 ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${PROTOCOL_VERSION_HEADER}: ${PROTOCOL_VERSION}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    close: ({ timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS }: ServeCloseOptions = {}) => {
      if (!(timeoutMs >= 0)) {
        return Promise.reject(new RangeError(`close()'s timeoutMs must be 0 or more milliseconds, not ${timeoutMs}.`));
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), Math.min(timeoutMs, MAX_TIMER_MS));
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        closing.abort();
        // A connection whose request is in flight closes once its response is sent, not kept alive.
        for (const response of inFlight) response.shouldKeepAlive = false;
        server.closeIdleConnections();
        for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
      });
    },
  };
}

/** Whether a response is an event stream (a session's `/events`), which never ends on its own. */
function isEventStream(response: Response): boolean {
  return response.body !== null && (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

/**
 * The response, with a body that ends cleanly (as a stream whose session was deleted does)
 * when `signal` aborts: the handler's stream is cancelled, so it stops listening for events.
 * A stream that ends first (the client left, the session was deleted) takes its listener off
 * `signal`, which lives as long as the server: it would otherwise keep every stream ever
 * served.
 */
export function endedBy(response: Response, signal: AbortSignal): Response {
  const reader = response.body!.getReader();
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    reader.cancel(signal.reason).catch(() => {});
    try {
      controller.close();
    } catch {
      // Closed already: the stream ended on its own.
    }
  };
  let stopListening = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (signal.aborted) return end(controller);
        const onAbort = () => end(controller);
        signal.addEventListener("abort", onAbort, { once: true });
        stopListening = () => signal.removeEventListener("abort", onAbort);
      },
      async pull(controller) {
        const { done, value } = await reader.read().catch((error: unknown) => {
          stopListening();
          throw error;
        });
        if (signal.aborted) return;
        if (done) {
          stopListening();
          controller.close();
        } else controller.enqueue(value);
      },
      cancel(reason) {
        stopListening();
        return reader.cancel(reason);
      },
    },
    // Reads from the handler's stream only as the client reads: a slow reader still costs nothing.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
