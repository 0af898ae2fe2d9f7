import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import compression from "compression";
import express from "express";
import Fastify from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type AgentRuntime,
  createAgentRuntime,
  createFetchHandler,
  memoryStore,
  scriptedModel,
  serve,
  toNodeHandler,
} from "../src/index.js";
import { quiet, readSse } from "./harness.js";
import { serverTools } from "./tools.js";

let runtime: AgentRuntime | undefined;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await runtime?.close();
  server = undefined;
  runtime = undefined;
});

/** A runtime whose model asks the person to pick a template, then thanks them in words streamed slowly. */
function hitlHandler(logger: Pick<Console, "warn" | "error"> = quiet) {
  runtime = createAgentRuntime({
    model: scriptedModel(
      [
        { text: "Which one?", toolCalls: [{ toolName: "pick_template", input: { templates: ["bold", "calm"] } }] },
        { text: "Thanks, the calm one it is, and here are a few more words." },
      ],
      { chunkDelayMs: 30, wordsPerChunk: 1 },
    ),
    tools: serverTools,
    store: memoryStore(),
    logger,
  });
  return toNodeHandler(createFetchHandler(runtime, { rateLimit: false }));
}

async function listen(app: RequestListener): Promise<string> {
  server = createServer(app);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A browser at `origin`: it keeps the identity cookie and sends JSON as the client does. */
function person(origin: string, api = `${origin}/api/agent`) {
  let cookie = "";
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { origin, cookie, ...(body === undefined ? {} : { "content-type": type }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    cookie = response.headers.getSetCookie()[0]?.split(";")[0] ?? cookie;
    return response;
  };
  return {
    call,
    json: async (method: string, path: string, body?: unknown) => {
      const response = await call(method, path, body);
      return { status: response.status, body: await response.json() };
    },
  };
}

/** Creates a session, sends a message and answers the picker, reading the event stream throughout. */
async function parkAndAnswer(origin: string, api?: string) {
  const ada = person(origin, api);
  const created = await ada.json("POST", "/sessions", {});
  expect(created.status).toBe(201);
  const id: string = created.body.sessionId;
  const stream = await ada.call("GET", `/sessions/${id}/events`);
  expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const arrived: number[] = [];
  const reading = readSse(stream, id, (events) => {
    arrived[events.length - 1] ??= performance.now();
    return events.some((event) => event.type === "turn.completed");
  });
  expect((await ada.json("POST", `/sessions/${id}/messages`, { text: "make me a poster" })).status).toBe(202);
  let pending: { requestId: string }[] = [];
  await vi.waitFor(async () => {
    pending = (await ada.json("GET", `/sessions/${id}`)).body.pending;
    expect(pending).toHaveLength(1);
  });
  const refused = await ada.json("POST", `/sessions/${id}/responses`, {
    responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: 7 } }],
  });
  expect(refused).toMatchObject({ status: 422, body: { error: { code: "invalid_answer" } } });
  const answer = { requestId: pending[0]!.requestId, action: "accept", value: { templateId: "calm" } };
  expect((await ada.json("POST", `/sessions/${id}/responses`, { responses: [answer] })).status).toBe(202);
  const events = await reading;
  return { ada, id, events, arrived: events.map((_, index) => arrived[index]!) };
}

describe("toNodeHandler", () => {
  it("serves the protocol from node:http, the event stream included", async () => {
    const origin = await listen(hitlHandler());
    const { events } = await parkAndAnswer(origin);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === "tool.result")).toHaveLength(1);
  });

  it("works in Express behind express.json() and compression(), streaming each delta as it comes", async () => {
    const app = express();
    app.use(compression(), express.json());
    app.all("/api/agent/*splat", hitlHandler());
    const origin = await listen(app);

    const { events, arrived } = await parkAndAnswer(origin);
    // Compression holds back nothing of the stream (it is `no-transform`): the reply's 13
    // words, streamed 30 ms apart, arrived apart, not in one piece at the end.
    const deltas = events.flatMap((event, index) => (event.type === "text.delta" ? [arrived[index]!] : []));
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.at(-1)! - deltas.at(-10)!).toBeGreaterThan(100);
    expect(events.at(-1)).toMatchObject({ type: "turn.completed" });
  });

  it("keeps the full path when Express mounts it with app.use or a router", async () => {
    const app = express();
    const router = express.Router();
    router.use("/agent", hitlHandler());
    app.use("/api", router);
    const origin = await listen(app);

    await parkAndAnswer(origin);
    const missing = await person(origin).json("GET", "/no-such-route");
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
  });

  it("answers a malformed body in JSON when mounted before body parsers, and sends its answer's bytes as given", async () => {
    const app = express();
    app.all("/api/agent/*splat", hitlHandler());
    app.use(express.json());
    const origin = await listen(app);
    const ada = person(origin);

    const broken = await ada.call("POST", "/sessions", "{ not json");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: "bad_request" } });
    const form = await ada.call("POST", "/sessions", "a=1", "application/x-www-form-urlencoded");
    expect(form.status).toBe(415);
  });

  it("works in Fastify, in a scope whose parser leaves the body to hitl-kit", async () => {
    const hitl = hitlHandler();
    const app = Fastify();
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
      scope.all("/api/agent/*", async (request, reply) => {
        reply.hijack();
        await hitl(request.raw, reply.raw);
      });
    });
    app.post("/echo", async (request) => request.body);
    const origin = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const { events } = await parkAndAnswer(origin);
      expect(events.at(-1)).toMatchObject({ type: "turn.completed" });
      const broken = await person(origin).call("POST", "/sessions", "{ not json");
      expect(await broken.json()).toMatchObject({ error: { code: "bad_request" } });
      // The app's own routes keep Fastify's parser.
      const echo = await fetch(`${origin}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ a: 1 }),
      });
      expect(await echo.json()).toEqual({ a: 1 });
    } finally {
      await app.close();
    }
  });

  it("says what to move when middleware read the body and kept nothing of it, once, to the runtime's logger", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    const logger = { warn: vi.fn(), error: vi.fn() };
    const app = express();
    app.use((request, _response, next) => {
      request.resume();
      request.once("end", () => next());
    });
    app.all("/api/agent/*splat", hitlHandler(logger));
    const origin = await listen(app);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await person(origin).json("POST", "/sessions", {});
      expect(refused.status).toBe(500);
      expect(refused.body.error.message).toMatch(/mount the handler before the middleware that reads bodies/);
    }
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]![0]).toMatch(/^hitl-kit: The request's body was read before hitl-kit's handler/);
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
  });

  it("logs a handler's failure to the logger it is given (serve's too), else the fetch handler's, not to the console", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    const failing = async (): Promise<Response> => {
      throw new Error("boom");
    };
    const given = { warn: vi.fn(), error: vi.fn() };
    const origin = await listen(toNodeHandler(failing, { logger: given }));
    const response = await fetch(`${origin}/api/agent/sessions`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: "internal" } });
    expect(given.error).toHaveBeenCalledWith(
      "hitl-kit: unexpected error",
      expect.objectContaining({ message: "boom" }),
    );

    const ofServe = { warn: vi.fn(), error: vi.fn() };
    const served = await serve(failing, { port: 0, logger: ofServe });
    try {
      expect((await fetch(`${served.url}/api/agent/sessions`)).status).toBe(500);
    } finally {
      await served.close();
    }
    expect(ofServe.error).toHaveBeenCalledWith(
      "hitl-kit: unexpected error",
      expect.objectContaining({ message: "boom" }),
    );
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
  });
});
