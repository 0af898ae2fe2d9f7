import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/** Options of {@link serve}. */
export interface ServeOptions {
  /** The port (default 3000; 0 picks a free one). */
  port?: number;
  /** The address to bind (default 127.0.0.1: only this machine can connect). */
  host?: string;
}

/** A running server. */
export interface Served {
  /** Where it listens, such as `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** Stops accepting connections and closes open ones, event streams included. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler with Node's http module.
 * @example
 * const { url } = await serve(createFetchHandler(runtime), { port: 3000 });
 */
export async function serve(
  handler: (request: Request) => Promise<Response>,
  options: ServeOptions = {},
): Promise<Served> {
  const server = createServer((req, res) => void respond(handler, req, res));
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function respond(handler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse) {
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      signal: abort.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Honour the socket's backpressure: a slow client is not read for, so the body
      // (an event stream catches up from the store instead) does not pile up in memory.
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    if (abort.signal.aborted) return;
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: "The server failed to handle this request." } }));
    } else {
      res.destroy(error as Error);
    }
  }
}
