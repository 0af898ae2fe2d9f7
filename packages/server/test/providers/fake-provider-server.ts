import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeProvider, FakeProviderOptions, FakeReply, RecordedRequest } from "./fake-reply.js";

/** A request refused before any reply, in words the provider's error body carries. */
export type Rejection = {
  status: number;
  message: string;
  /** OpenAI's `param` (the field at fault); Anthropic has none. */
  param?: string | null;
  /** OpenAI's `code`, such as `missing_required_parameter`. */
  code?: string | null;
};

/** What differs between providers: where they listen, how they check a request, and their wire formats. */
export type ProviderDialect = {
  /** Names the fake in error messages, such as `startFakeAnthropic`. */
  name: string;
  /** The one path that answers, such as `/v1/messages`. */
  path: string;
  /** The provider's error body for a rejection. */
  errorBody(rejection: Rejection): unknown;
  /** A rejection for a missing or malformed credential, or null. */
  authenticate(headers: IncomingMessage["headers"]): Rejection | null;
  /** A rejection for a body the real API refuses, or null. */
  validate(body: unknown): Rejection | null;
  /** Answers an accepted request with the reply, streamed or not as the body asks. */
  respond(body: Record<string, unknown>, reply: FakeReply, response: ServerResponse): Promise<void>;
};

/**
 * Starts a loopback HTTP server that speaks one provider's dialect: it records every request,
 * refuses what the real API refuses, and answers the i-th accepted request with reply i.
 */
export async function startFakeProviderServer(
  dialect: ProviderDialect,
  options: FakeProviderOptions,
): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let accepted = 0;

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const raw = await readBody(request);
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    const body = parseJson(raw);
    const record: RecordedRequest = {
      method: request.method ?? "GET",
      path,
      headers: request.headers,
      body,
      status: 0,
    };
    requests.push(record);
    response.once("close", () => {
      if (!response.writableFinished) record.left = true;
    });
    const reject = (rejection: Rejection, headers: Record<string, string> = {}) => {
      record.status = rejection.status;
      record.error = rejection.message;
      response.writeHead(rejection.status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(dialect.errorBody(rejection)));
    };

    if (record.method !== "POST" || path !== dialect.path) {
      return reject({ status: 404, message: `Invalid URL (${record.method} ${path})` });
    }
    if (body === undefined || typeof body !== "object" || body === null || Array.isArray(body)) {
      return reject({ status: 400, message: "The request body is not a valid JSON object." });
    }
    const rejection = dialect.authenticate(request.headers) ?? dialect.validate(body);
    if (rejection) return reject(rejection);

    let reply: FakeReply;
    try {
      reply = pickReply(dialect.name, options, body, accepted);
    } catch (error) {
      return reject({ status: 500, message: error instanceof Error ? error.message : String(error) });
    }
    accepted += 1;
    if (reply.fail) return reject(reply.fail, reply.fail.headers);
    record.status = 200;
    await dialect.respond(body as Record<string, unknown>, reply, response);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify(dialect.errorBody({ status: 500, message: String(error) })));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Provider packages fetch with keep-alive; without this, close waits for idle sockets to time out.
        server.closeAllConnections();
      }),
  };
}

function pickReply(name: string, options: FakeProviderOptions, body: unknown, index: number): FakeReply {
  const { replies } = options;
  if (typeof replies === "function") return replies(body, index);
  const reply = replies[index];
  if (reply === undefined) {
    throw new Error(
      `${name}: no reply scripted for request ${index + 1}; only ${replies.length} were given. Add a reply to the replies option.`,
    );
  }
  return reply;
}

/**
 * Streams server-sent-event frames one write at a time, yielding to the event loop between
 * writes so the client receives them as separate network chunks. Stops if the client leaves.
 * With `stallAfter`, it sends that many frames, then nothing until the client leaves.
 */
export async function writeEventStream(response: ServerResponse, frames: string[], stallAfter?: number): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [index, frame] of frames.entries()) {
    if (response.destroyed) return;
    if (index === stallAfter) {
      await new Promise((resolve) => response.once("close", resolve));
      return;
    }
    response.write(frame);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

/** Answers with one JSON body and status 200. */
export function writeJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
