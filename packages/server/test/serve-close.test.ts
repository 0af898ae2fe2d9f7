import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { connect as connectTls } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { endedBy } from "../src/http/serve.js";
import { createFetchHandler, type Served, scriptedModel, serve } from "../src/index.js";
import { startServer } from "./harness.js";

/** A deferred: a promise and what settles it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

let server: ReturnType<typeof startServer> | undefined;
let served: Served | undefined;
afterEach(async () => {
  await served?.close({ timeoutMs: 0 });
  await server?.close();
  served = undefined;
  server = undefined;
});

/**
 * The fetch handler served on a free port, with POSTs of a new session held at the door
 * until `open()`: `arrived` resolves when one is held there.
 */
async function heldServer() {
  server = startServer(scriptedModel([{ text: "Hello." }]));
  const handler = createFetchHandler(server.runtime, { identify: () => "ada", rateLimit: false, heartbeatMs: 60_000 });
  const arrived = deferred();
  const door = deferred();
  served = await serve(
    async (request, platform) => {
      if (request.method === "POST" && new URL(request.url).pathname === "/api/agent/sessions") {
        arrived.resolve();
        await door.promise;
      }
      return handler(request, platform);
    },
    { port: 0 },
  );
  const base = `${served.url}/api/agent`;
  const createSession = () =>
    fetch(`${base}/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  return { served, base, arrived: arrived.promise, open: door.resolve, createSession };
}

describe("serve().close()", () => {
  it("lets a request in flight finish and answers it, while it refuses new connections", async () => {
    const { served, arrived, open, createSession } = await heldServer();
    const reply = createSession();
    await arrived;
    const closed = served.close();
    await expect(fetch(`${served.url}/api/agent/sessions`)).rejects.toThrow(); // not accepted any more
    open();
    const answered = await reply;
    expect(answered.status).toBe(201);
    expect(await answered.json()).toEqual({ sessionId: expect.any(String) });
    await expect(closed).resolves.toBeUndefined();
  });

  it("ends the event streams cleanly, so their clients reconnect elsewhere and resume", async () => {
    const { served, base, open, createSession } = await heldServer();
    open();
    const { sessionId } = await (await createSession()).json();
    const stream = await fetch(`${base}/sessions/${sessionId}/events?after=0`);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: session.created")) text += (await reader.read()).value ?? "";
    const closed = served.close();
    for (;;) {
      // An error here (a dropped connection) is what a clean end is not.
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toMatch(/^retry: 1000\n\n/);
    await expect(closed).resolves.toBeUndefined();
  });

  it("closes a connection that has sent no request yet at once, as a browser's preconnect, instead of waiting for it", async () => {
    const { served, open, createSession } = await heldServer();
    open();
    // A kept-alive connection after its request, and one that has sent nothing.
    expect((await createSession()).status).toBe(201);
    const spare = connect(served.port, "127.0.0.1");
    await new Promise((resolve) => spare.once("connect", resolve));
    const ended = new Promise((resolve) => spare.once("close", resolve));
    // Far longer than the test may take: close() resolves by closing the spare connection, not by dropping it.
    await expect(served.close({ timeoutMs: 600_000 })).resolves.toBeUndefined();
    await ended;
  });

  it("closes an HTTPS connection that has sent no request after its handshake at once too", async () => {
    const fixtures = new URL("./fixtures/", import.meta.url);
    const tls = {
      cert: readFileSync(new URL("tls-cert.pem", fixtures), "utf8"),
      key: readFileSync(new URL("tls-key.pem", fixtures), "utf8"),
    };
    server = startServer(scriptedModel([]));
    served = await serve(createFetchHandler(server.runtime), { port: 0, tls });
    const spare = connectTls({
      port: served.port,
      host: "127.0.0.1",
      ca: tls.cert,
      checkServerIdentity: () => undefined,
    });
    // TLS 1.3 sends the session ticket once the server has the whole handshake: it knows the connection then.
    await new Promise((resolve) => spare.once("session", resolve));
    const ended = new Promise((resolve) => spare.once("close", resolve));
    await expect(served.close({ timeoutMs: 600_000 })).resolves.toBeUndefined();
    await ended;
  });

  it("drops what is still in flight after timeoutMs, and resolves", async () => {
    const { served, arrived, createSession } = await heldServer();
    const reply = createSession();
    reply.catch(() => {});
    await arrived;
    await expect(served.close({ timeoutMs: 50 })).resolves.toBeUndefined();
    await expect(reply).rejects.toThrow();
  });

  it("refuses a timeoutMs below 0", async () => {
    const { served } = await heldServer();
    await expect(served.close({ timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be 0 or more/);
  });
});

describe("serve()'s kept-alive connections", () => {
  /** A raw connection that sends one request and keeps what comes back; `closed` resolves when the server ends it. */
  async function keptAlive(port: number) {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write("GET /api/agent/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    while (!received.includes("\r\n\r\n")) await new Promise((resolve) => socket.once("data", resolve));
    return { socket, headers: received.split("\r\n\r\n")[0]!, closed };
  }

  it("keeps an idle connection 65 s by default, longer than a balancer's 60, and says so", async () => {
    server = startServer(scriptedModel([]));
    served = await serve(createFetchHandler(server.runtime), { port: 0 });
    const { socket, headers } = await keptAlive(served.port);
    expect(headers).toMatch(/^keep-alive: timeout=65$/im);
    socket.destroy();
  });

  it("closes an idle connection after keepAliveTimeoutMs", async () => {
    server = startServer(scriptedModel([]));
    served = await serve(createFetchHandler(server.runtime), { port: 0, keepAliveTimeoutMs: 1_000 });
    const { headers, closed } = await keptAlive(served.port);
    expect(headers).toMatch(/^keep-alive: timeout=1$/im);
    const idle = performance.now();
    await closed;
    expect(performance.now() - idle).toBeGreaterThan(900);
  });

  it("refuses a keepAliveTimeoutMs that is not a positive number", async () => {
    server = startServer(scriptedModel([]));
    for (const keepAliveTimeoutMs of [0, -1, Number.NaN]) {
      await expect(serve(createFetchHandler(server.runtime), { port: 0, keepAliveTimeoutMs })).rejects.toThrow(
        /keepAliveTimeoutMs must be a positive number/,
      );
    }
  });
});

describe("serve()'s event streams", () => {
  /** An event stream's response whose body the test ends: one comment, then `end()` closes it. */
  function eventStream() {
    let close!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(": hi\n\n"));
        close = () => controller.close();
      },
    });
    return { response: new Response(body, { headers: { "content-type": "text/event-stream" } }), end: () => close() };
  }

  it("take their listener off the server's signal when they end first, however they end", async () => {
    const closing = new AbortController();
    const listeners = () => getEventListeners(closing.signal, "abort").length;

    const read = eventStream();
    const readToEnd = endedBy(read.response, closing.signal).body!.getReader();
    expect(listeners()).toBe(1);
    await readToEnd.read();
    read.end(); // the session was deleted: the handler's stream ends
    expect((await readToEnd.read()).done).toBe(true);
    expect(listeners()).toBe(0);

    const left = endedBy(eventStream().response, closing.signal).body!.getReader();
    await left.read();
    await left.cancel(); // the client left
    expect(listeners()).toBe(0);

    const open = endedBy(eventStream().response, closing.signal).body!.getReader();
    await open.read();
    closing.abort(); // the server closes: the stream ends cleanly
    expect((await open.read()).done).toBe(true);
    expect(listeners()).toBe(0);
  });

  it("serve any number at once, one after another or side by side, without a listener warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      served = await serve(async () => eventStream().response, { port: 0 });
      for (let i = 0; i < 15; i++) {
        const reader = (await fetch(`${served.url}/events`)).body!.getReader();
        await reader.read();
        await reader.cancel();
      }
      const open = await Promise.all(
        Array.from({ length: 15 }, async () => (await fetch(`${served!.url}/events`)).body!.getReader()),
      );
      await Promise.all(open.map((reader) => reader.read()));
      await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
      expect(warnings).toEqual([]);
      await Promise.all(open.map((reader) => reader.cancel()));
    } finally {
      process.off("warning", onWarning);
    }
  });
});
