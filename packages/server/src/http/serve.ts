import { createServer } from "node:http";
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { ProtocolError } from "@hitl-kit/protocol";
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
}

/** A running server. */
export interface Served {
  /** Where it listens, such as `http://127.0.0.1:3000`. */
  url: string;
  /** The port it listens on: the one asked for, or the free one picked for port 0. */
  port: number;
  /** Stops accepting connections and closes open ones, event streams included. */
  close(): Promise<void>;
}

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
  handler: (request: Request, platform?: unknown) => Promise<Response>,
  options: ServeOptions = {},
): Promise<Served> {
  const listener = toNodeHandler(handler, options.logger ? { logger: options.logger } : {});
  const server = options.tls ? createHttpsServer(options.tls, listener) : createServer(listener);
  // What Node's HTTP parser refuses never reaches the handler: answer it in JSON too.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const refusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new ProtocolError("headers_too_large", "The request's headers are too large.")
        : new ProtocolError("bad_request", `The request is not valid HTTP (${error.code ?? error.message}).`);
    const body = JSON.stringify(refusal.toBody());
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.status === 431 ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
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
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
