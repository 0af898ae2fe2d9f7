import { readFileSync } from "node:fs";
import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { PROTOCOL_VERSION } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RateLimiter } from "../src/http/rate-limiter.js";
import {
  createAgentRuntime,
  createFetchHandler,
  memoryStore,
  type Served,
  scriptedModel,
  serve,
} from "../src/index.js";
import { startServer } from "./harness.js";

let server: ReturnType<typeof startServer> | undefined;
let served: Served | undefined;
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  await served?.close();
  await server?.close();
  served = undefined;
  server = undefined;
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  socket: Socket;
}

/** One HTTP/1.1 request with node:http (a real client, with a keep-alive agent if given). */
function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent; ca?: string } = {},
): Promise<Reply> {
  const target = new URL(url);
  const call = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = call(
      target,
      { method: init.method ?? "GET", headers: init.headers ?? {}, agent: init.agent, ca: init.ca },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, socket: req.socket! }));
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Sends raw bytes on a new connection and reads the whole answer (the server closes it or it ends at `until`). */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(bytes));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

/** Sends the start of a request on a new connection, then drops the connection, as a client that aborts its upload does. */
function abortAfter(port: number, bytes: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes, () => setTimeout(() => socket.destroy(), 20)));
    socket.on("close", () => resolve());
    socket.on("error", () => {});
  });
}

async function servedChat(http = {}) {
  server = startServer(
    scriptedModel(() => ({ text: "Pick.", toolCalls: [{ toolName: "pick_template", input: { templates: ["a"] } }] })),
    { http },
  );
  served = await serve(createFetchHandler(server.runtime, { heartbeatMs: 60_000, rateLimit: false, ...http }), {
    port: 0,
  });
  return `${served.url}/api/agent`;
}

const json = { "content-type": "application/json" };

/** {@link servedChat} with one session of an anonymous browser: its creation's reply, identity cookie and id. */
async function servedSession() {
  const base = await servedChat();
  const created = await send(`${base}/sessions`, { method: "POST", headers: json, body: "{}" });
  const cookie = created.headers["set-cookie"]![0]!.split(";")[0]!;
  return { base, created, cookie, id: JSON.parse(created.text).sessionId as string };
}

function expectJsonError(reply: Reply, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/json");
  expect(JSON.parse(reply.text)).toEqual({
    error: {
      code,
      message: expect.any(String),
      ...(JSON.parse(reply.text).error.details ? { details: expect.anything() } : {}),
    },
  });
}

describe("the Node adapter (serve)", () => {
  it("answers a body over the limit with 413, and the kept-alive connection serves the next request", async () => {
    const base = await servedChat({ maxBodyBytes: 64 * 1024 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const created = await send(`${base}/sessions`, { method: "POST", headers: json, body: "{}", agent });
    const cookie = created.headers["set-cookie"]![0]!.split(";")[0]!;
    const id = JSON.parse(created.text).sessionId;
    const big = JSON.stringify({ text: "x".repeat(512 * 1024) });
    for (const headers of [
      { ...json, cookie },
      { ...json, cookie, "transfer-encoding": "chunked" },
    ]) {
      const tooLarge = await send(`${base}/sessions/${id}/messages`, { method: "POST", headers, body: big, agent });
      expectJsonError(tooLarge, 413, "payload_too_large");
      const next = await send(`${base}/sessions/${id}`, { headers: { cookie }, agent });
      expect(next.status).toBe(200);
      expect(next.socket).toBe(tooLarge.socket); // the same connection
    }
    expect(await server!.events(id)).toHaveLength(1);
  });

  it("answers an upload the client cut off with a 400, and logs nothing of it", async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const printed = [vi.spyOn(console, "error"), vi.spyOn(console, "info")];
    const runtime = createAgentRuntime({ model: scriptedModel([]), store: memoryStore(), logger });
    const handler = createFetchHandler(runtime, { identify: () => "ada", rateLimit: false });
    const statuses: number[] = [];
    served = await serve(
      async (request, platform) => {
        const response = await handler(request, platform);
        statuses.push(response.status);
        return response;
      },
      { port: 0 },
    );
    try {
      const { sessionId } = await runtime.createSession({ owner: "ada" });
      const head = `POST /api/agent/sessions/${sessionId}/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n`;
      const cutOff = [
        `${head}content-length: 1000\r\n\r\n{"text": "hello `,
        `${head}transfer-encoding: chunked\r\n\r\n10\r\n{"text": "hello \r\n`,
      ];
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => abortAfter(served!.port, cutOff[index % cutOff.length]!)),
      );
      await vi.waitFor(() => expect(statuses).toHaveLength(20));
      expect(statuses).toEqual(Array(20).fill(400));
      expect(logger.error).not.toHaveBeenCalled();
      for (const print of printed) expect(print).not.toHaveBeenCalled();
      // A web-standard runtime's body that ends in an error reads the same.
      const broken = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"text": "hel'));
          controller.error(new Error("aborted"));
        },
      });
      const response = await handler(
        new Request(`http://127.0.0.1/api/agent/sessions/${sessionId}/messages`, {
          method: "POST",
          headers: json,
          body: broken,
          duplex: "half",
        } as RequestInit),
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: "bad_request",
          message: "The request body was cut off: the connection ended before all of it came.",
        },
      });
      expect(logger.error).not.toHaveBeenCalled();
      expect(await runtime.readEvents(sessionId, 0)).toHaveLength(1); // session.created, nothing more
    } finally {
      await runtime.close();
    }
  });

  it("answers a malformed Host header with a JSON 400", async () => {
    const base = await servedChat();
    for (const host of ["exa mple.com", "evil.example/path", "[::1"]) {
      const raw = await sendRaw(
        served!.port,
        `GET /api/agent/sessions HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(raw, host).toMatch(/^HTTP\/1.1 400 /);
      expect(raw).toMatch(/\r\ncontent-type: application\/json\r\n/i);
      expect(raw).toContain('"code":"bad_request"');
    }
    expect((await send(`${base}/sessions`)).status).toBe(200);
  });

  it("answers what is not HTTP at all, or headers too large, in JSON too, saying its wire version", async () => {
    await servedChat();
    const garbage = await sendRaw(served!.port, "NOT HTTP\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1.1 400 /);
    expect(garbage).toContain('"code":"bad_request"');
    const huge = await sendRaw(
      served!.port,
      `GET /api/agent/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nx-big: ${"a".repeat(64 * 1024)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1.1 431 /);
    expect(huge).toContain('"code":"headers_too_large"');
    for (const answer of [garbage, huge]) expect(answer).toContain(`\r\nhitl-protocol: ${PROTOCOL_VERSION}\r\n`);
  });

  it("keeps several Set-Cookie headers apart", async () => {
    served = await serve(
      async () => {
        const headers = new Headers({ "content-type": "application/json" });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/; HttpOnly");
        return new Response("{}", { headers });
      },
      { port: 0 },
    );
    const reply = await send(served.url);
    expect(reply.headers["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/; HttpOnly"]);
  });

  it("gives the handler https: URLs when it terminates TLS, so the identity cookie is Secure", async () => {
    const fixtures = new URL("./fixtures/", import.meta.url);
    const cert = readFileSync(new URL("tls-cert.pem", fixtures), "utf8");
    const key = readFileSync(new URL("tls-key.pem", fixtures), "utf8");
    server = startServer(scriptedModel([]));
    served = await serve(createFetchHandler(server.runtime), { port: 0, tls: { key, cert } });
    expect(served.url).toMatch(/^https:\/\//);
    const created = await send(`${served.url}/api/agent/sessions`, {
      method: "POST",
      headers: json,
      body: "{}",
      ca: cert,
    });
    expect(created.status).toBe(201);
    expect(created.headers["set-cookie"]![0]).toMatch(/^__Host-hitl-id=.*; Secure$/);
  });

  it("writes an event stream only as fast as a slow client reads it: the rest waits in the store, not in memory", async () => {
    // Enough text that its events (joined into deltas of up to 1 KB) overflow the socket's buffers.
    const words = Array.from({ length: 100_000 }, (_, index) => `word${index}`).join(" ");
    server = startServer(scriptedModel([{ text: words }]), { store: memoryStore() });
    served = await serve(createFetchHandler(server.runtime, { identify: () => "ada", rateLimit: false }), { port: 0 });
    const id = (await server.runtime.createSession({ owner: "ada" })).sessionId;
    const reads: number[] = [];
    const readEvents = server.runtime.readEvents.bind(server.runtime);
    server.runtime.readEvents = (sessionId, after, limit) => {
      if (after > 0 && after < Number.MAX_SAFE_INTEGER) reads.push(after);
      return readEvents(sessionId, after, limit);
    };
    // A client that opens the stream, then stops reading while the whole turn streams.
    const socket = connect(served.port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (text += chunk));
    socket.write(`GET /api/agent/sessions/${id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await vi.waitFor(() => expect(text).toContain("id: 1\n"));
    socket.pause();
    await server.runtime.sendMessage(id, "go");
    await server.runtime.idle();
    // The stream stopped taking events once the socket's buffers filled: the rest waits in the store.
    const total = (await readEvents(id, 0)).length;
    const takenWhilePaused = Math.max(0, ...reads);
    expect(takenWhilePaused).toBeLessThan(total / 2);
    socket.resume();
    await vi.waitFor(() => expect(text).toContain("event: turn.completed"), { timeout: 20_000 });
    socket.destroy();
    expect(Math.max(...reads)).toBeGreaterThan(takenWhilePaused); // it caught up from the store
    const seqs = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    const all = await readEvents(id, 0);
    expect(seqs).toEqual(all.map((event) => event.seq)); // every event once, in order
  });
});

describe("what every request must be, on the adapter and the fetch handler", () => {
  it("answers each bad input with its 4xx and a JSON error body, and changes nothing", async () => {
    const { base, cookie, id } = await servedSession();
    const withCookie = { ...json, cookie };
    const nested = (depth: number) => `{"text":"hi","extra":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const cases: [string, string, Record<string, string>, string | undefined, number, string][] = [
      [
        "bad percent-encoding in the session id",
        `/sessions/%E0%A4%A/messages`,
        withCookie,
        '{"text":"hi"}',
        400,
        "bad_request",
      ],
      ["a lone % in the session id", `/sessions/%/`, { cookie }, undefined, 404, "not_found"],
      ["a lone % before a route", `/sessions/%zz/cancel`, withCookie, "{}", 400, "bad_request"],
      ["JSON nested 10 000 deep", `/sessions/${id}/messages`, withCookie, nested(10_000), 400, "bad_request"],
      ["JSON nested 65 deep", `/sessions/${id}/messages`, withCookie, nested(65), 400, "bad_request"],
      ["a cancel with no content type", `/sessions/${id}/cancel`, { cookie }, "", 415, "unsupported_media_type"],
      ["a create with no content type", "/sessions", { cookie }, "{}", 415, "unsupported_media_type"],
      ["a snapshot page before no position", `/sessions/${id}?before=abc`, { cookie }, undefined, 400, "bad_request"],
      ["a snapshot page of 0 messages", `/sessions/${id}?limit=0`, { cookie }, undefined, 400, "bad_request"],
      ["a snapshot page of 201 messages", `/sessions/${id}?limit=201`, { cookie }, undefined, 400, "bad_request"],
    ];
    for (const [name, path, headers, body, status, code] of cases) {
      const reply = await send(`${base}${path}`, { method: body === undefined ? "GET" : "POST", headers, body });
      expect(reply.status, name).toBe(status);
      expectJsonError(reply, status, code);
    }
    // The base path alone names no route, and says where the routes are.
    const bare = await send(base, { headers: { cookie } });
    expectJsonError(bare, 404, "not_found");
    expect(JSON.parse(bare.text).error.message).toBe("No route /api/agent; hitl-kit serves /api/agent/sessions.");
    // A path under it that names no route says the whole path, as the server got it.
    const unknown = await send(`${base}/nope`, { headers: { cookie } });
    expect(JSON.parse(unknown.text).error.message).toBe(
      "No route GET /api/agent/nope; hitl-kit serves /api/agent/sessions.",
    );
    const fine = await send(`${base}/sessions/${id}/messages`, {
      method: "POST",
      headers: withCookie,
      body: nested(60),
    });
    expect(fine.status).toBe(202);

    for (const bad of ["0x10", "1e3", " 5", "-1", "+5", "5.0", "1_000", "99999999999999999999"]) {
      // HTTP strips the spaces around a header's value, so " 5" can only arrive in the query.
      if (bad !== " 5") {
        const byHeader = await send(`${base}/sessions/${id}/events`, { headers: { cookie, "last-event-id": bad } });
        expectJsonError(byHeader, 400, "bad_request");
      }
      const byQuery = await send(`${base}/sessions/${id}/events?after=${encodeURIComponent(bad)}`, {
        headers: { cookie },
      });
      expectJsonError(byQuery, 400, "bad_request");
    }
  });

  it("answers HEAD on every GET route with the GET's status and headers and no body", async () => {
    const { base, cookie, id } = await servedSession();
    for (const path of ["/sessions", `/sessions/${id}`, `/sessions/${id}/messages?key=k`]) {
      const head = await send(`${base}${path}`, { method: "HEAD", headers: { cookie } });
      expect([head.status, head.headers["content-type"], head.text]).toEqual([200, "application/json", ""]);
    }
    const missing = await send(`${base}/sessions/ses_nope`, { method: "HEAD", headers: { cookie } });
    expect([missing.status, missing.text]).toEqual([404, ""]);
    const wrong = await send(`${base}/sessions/${id}/cancel`, { method: "HEAD", headers: { cookie } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("POST");
  });
});

describe("a person's data in transit", () => {
  it("is kept by no cache and read as nothing but what it is: snapshots, lists, errors and the event stream", async () => {
    const { base, cookie, id } = await servedSession();
    for (const path of [`/sessions/${id}`, "/sessions", "/sessions/ses_nobody", `/sessions/${id}/messages?key=k`]) {
      const answered = await send(`${base}${path}`, { headers: { cookie } });
      expect([answered.headers["cache-control"], answered.headers["x-content-type-options"]]).toEqual([
        "no-store",
        "nosniff",
      ]);
    }
    const stream = await fetch(`${base}/sessions/${id}/events`, { headers: { cookie } });
    expect(stream.headers.get("cache-control")).toBe("no-store, no-transform");
    await stream.body?.cancel();
  });
});

describe("the protocol version", () => {
  it("is said in a hitl-protocol header on every answer: JSON, errors and the event stream", async () => {
    const { base, created, cookie, id } = await servedSession();
    const read = await send(`${base}/sessions/${id}`, { headers: { cookie } });
    const missing = await send(`${base}/sessions/ses_nobody`, { headers: { cookie } });
    const refused = await send(`${base}/sessions/${id}/messages`, { method: "POST", headers: { cookie }, body: "hi" });
    expect([created.status, read.status, missing.status, refused.status]).toEqual([201, 200, 404, 415]);
    for (const reply of [created, read, missing, refused]) {
      expect(reply.headers["hitl-protocol"]).toBe(String(PROTOCOL_VERSION));
    }
    const stream = await fetch(`${base}/sessions/${id}/events`, { headers: { cookie } });
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("hitl-protocol")).toBe(String(PROTOCOL_VERSION));
    await stream.body?.cancel();
  });
});

describe("trustProxy", () => {
  it("takes the scheme and host from X-Forwarded-* only when told to", async () => {
    const forwarded = {
      "content-type": "application/json",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "chat.example",
    };
    server = startServer(scriptedModel([]));
    const untrusted = await server.call("POST", "/sessions", {}, forwarded);
    expect(untrusted.headers.getSetCookie()[0]).toMatch(/^hitl-id=/);
    // An Origin naming the forwarded host is another origin unless the proxy is trusted.
    expect((await server.call("POST", "/sessions", {}, { ...forwarded, origin: "https://chat.example" })).status).toBe(
      403,
    );

    const trusted = createFetchHandler(server.runtime, { trustProxy: true, rateLimit: false });
    const behindProxy = await trusted(
      new Request("http://127.0.0.1/api/agent/sessions", {
        method: "POST",
        headers: { ...forwarded, origin: "https://chat.example" },
        body: "{}",
      }),
    );
    expect(behindProxy.status).toBe(201);
    expect(behindProxy.headers.getSetCookie()[0]).toMatch(/^__Host-hitl-id=.*; Secure$/);
    // nginx's `X-Forwarded-Host $host` names no port: the server's own port is not the page's.
    const portless = (host: string) =>
      trusted(
        new Request("http://127.0.0.1:3102/api/agent/sessions", {
          method: "POST",
          headers: { ...forwarded, "x-forwarded-host": host, origin: "https://chat.example" },
          body: "{}",
        }),
      );
    expect((await portless("chat.example")).status).toBe(201);
    expect((await portless("chat.example:443")).status).toBe(201);
    expect((await portless("chat.example:8443")).status).toBe(403);
    const badHost = await trusted(
      new Request("http://127.0.0.1/api/agent/sessions", { headers: { "x-forwarded-host": "a b" } }),
    );
    expect(badHost.status).toBe(400);
  });
});

describe("rate limits", () => {
  it("limits session creation per address for anonymous callers: a new cookie does not dodge it, nor a forged X-Forwarded-For", async () => {
    server = startServer(scriptedModel([]));
    served = await serve(createFetchHandler(server.runtime, { rateLimit: { maxCreates: 3 } }), { port: 0 });
    const create = (headers: Record<string, string> = {}) =>
      send(`${served!.url}/api/agent/sessions`, { method: "POST", headers: { ...json, ...headers }, body: "{}" });
    for (let index = 0; index < 3; index += 1)
      expect((await create({ "x-forwarded-for": `10.0.0.${index}` })).status).toBe(201);
    const limited = await create({ "x-forwarded-for": "10.0.0.99" }); // no cookie: a "new" person, same address
    expectJsonError(limited, 429, "rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(JSON.parse(limited.text).error.details.retryAfterSeconds).toBe(Number(limited.headers["retry-after"]));
    expect((await server.runtime.listSessions()).length).toBe(3);
  });

  it("keys on X-Forwarded-For behind a trusted proxy, and on the principal the host names", async () => {
    server = startServer(scriptedModel([]));
    const proxied = createFetchHandler(server.runtime, { trustProxy: true, rateLimit: { maxCreates: 1 } });
    const create = (handler: typeof proxied, headers: Record<string, string>) =>
      handler(
        new Request("http://127.0.0.1/api/agent/sessions", {
          method: "POST",
          headers: { ...json, ...headers },
          body: "{}",
        }),
      );
    expect((await create(proxied, { "x-forwarded-for": "1.1.1.1" })).status).toBe(201);
    expect((await create(proxied, { "x-forwarded-for": "2.2.2.2" })).status).toBe(201);
    expect((await create(proxied, { "x-forwarded-for": "1.1.1.1" })).status).toBe(429);

    const identified = createFetchHandler(server.runtime, {
      identify: (request) => request.headers.get("x-user"),
      rateLimit: { max: 2 },
    });
    const id = (await (await create(identified, { "x-user": "ada" })).json()).sessionId;
    const cancel = (user: string) =>
      identified(
        new Request(`http://127.0.0.1/api/agent/sessions/${id}/cancel`, {
          method: "POST",
          headers: { ...json, "x-user": user },
          body: "{}",
        }),
      );
    expect((await cancel("ada")).status).toBe(202);
    expect((await cancel("ada")).status).toBe(202);
    const limited = await cancel("ada");
    expect([limited.status, limited.headers.get("retry-after") !== null]).toEqual([429, true]);
    expect((await cancel("bob")).status).toBe(404); // bob has his own budget, and no such session
  });

  it("counts an IPv6 caller by its /64, and an IPv4 address written as IPv6 as IPv4", async () => {
    server = startServer(scriptedModel([]));
    const proxied = createFetchHandler(server.runtime, { trustProxy: true, rateLimit: { maxCreates: 1 } });
    const create = (from: string) =>
      proxied(
        new Request("http://127.0.0.1/api/agent/sessions", {
          method: "POST",
          headers: { ...json, "x-forwarded-for": from },
          body: "{}",
        }),
      );
    expect((await create("2001:db8:1:2::1")).status).toBe(201);
    expect((await create("2001:db8:1:2:ffff::9")).status).toBe(429); // the same /64
    expect((await create("2001:db8:1:3::1")).status).toBe(201);
    expect((await create("192.0.2.7")).status).toBe(201);
    expect((await create("::ffff:192.0.2.7")).status).toBe(429);
  });

  it("says once when it cannot tell anonymous callers apart, having no address for them", async () => {
    server = startServer(scriptedModel([]));
    const warnings: string[] = [];
    const handler = createFetchHandler(server.runtime, {
      rateLimit: { maxCreates: 5 },
      logger: { warn: (message: string) => warnings.push(message), error: () => {} },
    });
    const create = () =>
      handler(new Request("http://127.0.0.1/api/agent/sessions", { method: "POST", headers: json, body: "{}" }));
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(201);
    expect(warnings).toEqual([
      expect.stringContaining("every caller without an identity shares one rate-limit budget"),
    ]);
  });

  it("caps the event streams one principal holds open, not one address, and counts a closed one out", async () => {
    const base = await servedChat({ rateLimit: { maxStreams: 2 } });
    const person = async () => {
      const created = await send(`${base}/sessions`, { method: "POST", headers: json, body: "{}" });
      const cookie = created.headers["set-cookie"]![0]!.split(";")[0]!;
      const id = JSON.parse(created.text).sessionId;
      return () => fetch(`${base}/sessions/${id}/events`, { headers: { cookie } });
    };
    const open = await person();
    const first = await open();
    const second = await open();
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("5");
    // Another person from the same address has a budget of their own.
    const neighbour = await (await person())();
    expect(neighbour.status).toBe(200);
    await neighbour.body?.cancel();
    await first.body?.cancel();
    await expect
      .poll(async () => {
        const again = await open();
        if (again.status === 200) await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await second.body?.cancel();
  });

  it("stays within its key budget under a flood of unique keys", () => {
    const limiter = new RateLimiter({ max: 1, maxKeys: 1000 });
    for (let index = 0; index < 100_000; index += 1) limiter.check("command", `key-${index}`, 1_000);
    expect(limiter.size).toBeLessThanOrEqual(1000);
    // The newest callers are still counted.
    expect(() => limiter.check("command", "key-99999", 1_000)).toThrow(/Too many/);
  });
});
