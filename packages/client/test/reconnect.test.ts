import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, type ConnectionState, createAgentClient } from "../src/index.js";
import { follow, startAgentServer, textOf, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
let server: Server | undefined;
let client: AgentClient | undefined;

afterEach(async () => {
  client?.close();
  await server?.close();
  server = client = undefined;
});

const words = Array.from({ length: 60 }, (_, index) => `w${index}`).join(" ");
const fast = { initialDelayMs: 5, maxDelayMs: 20 };

/** The body of `response`, erroring (as a dropped connection does) after `chunks` chunks. */
function dropAfter(response: Response, chunks: number): Response {
  const reader = response.body!.getReader();
  let passed = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (passed++ >= chunks) {
        await reader.cancel();
        return controller.error(new TypeError("network connection lost"));
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      controller.enqueue(value);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The body of `response` with `frame` sent first. */
function prepend(response: Response, frame: string): Response {
  const reader = response.body!.getReader();
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        return controller.enqueue(new TextEncoder().encode(frame));
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      controller.enqueue(value);
    },
    cancel: () => reader.cancel(),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

describe("the event stream", () => {
  it("skips an event type from a newer server and goes on", async () => {
    server = await startAgentServer([{ text: "still here" }]);
    const future = `event: tool.progress\ndata: ${JSON.stringify({ seq: 1, type: "tool.progress", percent: 50 })}\n\n`;
    const fetch = async (input: string, init?: RequestInit) => {
      const response = await server!.fetch(input, init);
      return input.endsWith("/events") ? prepend(response, future) : response;
    };
    client = follow(createAgentClient({ url: server.url, fetch, reconnect: fast }));
    await client.ready;
    await client.send("hello");
    const done = await waitFor(client, (s) => s.session.status === "idle" && s.messages.length === 2);
    expect(textOf(done)).toBe("still here");
    expect(done.connection).toBe("open");
  });

  it("reconnects after a drop mid-text with Last-Event-ID, losing and doubling nothing", async () => {
    server = await startAgentServer([{ text: words }], { chunkDelayMs: 2 });
    const streams: { lastEventId: string | null }[] = [];
    const fetch = async (input: string, init?: RequestInit) => {
      const response = await server!.fetch(input, init);
      if (!input.endsWith("/events")) return response;
      streams.push({ lastEventId: new Headers(init?.headers).get("last-event-id") });
      return streams.length === 1 ? dropAfter(response, 12) : response;
    };
    client = follow(createAgentClient({ url: server.url, fetch, reconnect: fast }));
    const connections: ConnectionState[] = [];
    client.subscribe((state, previous) => {
      if (state.connection !== previous.connection) connections.push(state.connection);
    });
    await client.ready;
    await client.send("write");
    const done = await waitFor(client, (s) => s.session.status === "idle" && s.messages.length === 2);

    expect(textOf(done)).toBe(words);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(connections).toContain("reconnecting");
    const log = await server.runtime.readEvents(done.sessionId!, 0);
    const deltas = log.filter((event) => event.type === "text.delta" && event.messageId === done.messages[1]!.id);
    const resumedAfter = Number(streams[1]!.lastEventId);
    expect(resumedAfter).toBeGreaterThanOrEqual(deltas[0]!.seq);
    expect(resumedAfter).toBeLessThan(deltas.at(-1)!.seq);
    expect(done.lastSeq).toBe(log.at(-1)!.seq);
  });

  it("says reconnecting as soon as the stream drops, all through the wait before the next try", async () => {
    server = await startAgentServer([{ text: words }], { chunkDelayMs: 2 });
    let streams = 0;
    const fetch = async (input: string, init?: RequestInit) => {
      if (!input.endsWith("/events")) return server!.fetch(input, init);
      streams++;
      return dropAfter(await server!.fetch(input, init), 12);
    };
    // A minute before the next try: the stream is down all that time, and the state must say so.
    const slow = { initialDelayMs: 60_000, jitter: 0 };
    client = follow(createAgentClient({ url: server.url, fetch, reconnect: slow }));
    await client.ready;
    await client.send("write");
    const dropped = await waitFor(client, (s) => s.connection === "reconnecting");
    expect(dropped.status).toBe("reconnecting");
    expect(streams).toBe(1);
  });

  it("applies each event once when a reconnect replays events it has already seen", async () => {
    server = await startAgentServer([{ text: words }], { chunkDelayMs: 2 });
    let streams = 0;
    const fetch = async (input: string, init?: RequestInit) => {
      if (!input.endsWith("/events")) return server!.fetch(input, init);
      streams++;
      // Resume from the start whatever the client asks, as a forgetful proxy might.
      const headers = new Headers(init?.headers);
      headers.set("last-event-id", "0");
      const response = await server!.fetch(input, { ...init, headers });
      return streams === 1 ? dropAfter(response, 12) : response;
    };
    client = follow(createAgentClient({ url: server.url, fetch, reconnect: fast }));
    await client.ready;
    await client.send("write");
    const done = await waitFor(client, (s) => s.session.status === "idle" && s.messages.length === 2);
    expect(streams).toBeGreaterThanOrEqual(2);
    expect(textOf(done)).toBe(words);
    expect(textOf(done, 0)).toBe("write");
  });

  it("treats a 404 on reconnect as an error instead of retrying", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    let streams = 0;
    const fetch = async (input: string, init?: RequestInit) => {
      if (!input.endsWith("/events")) return server!.fetch(input, init);
      streams++;
      if (streams === 1) return dropAfter(await server!.fetch(input, init), 1);
      const body = { error: { code: "not_found", message: "There is no session." } };
      return new Response(JSON.stringify(body), { status: 404, headers: { "content-type": "application/json" } });
    };
    client = follow(createAgentClient({ url: server.url, fetch, reconnect: fast }));
    await client.createSession();
    const failed = await waitFor(client, (s) => s.connection === "closed");
    expect(failed).toMatchObject({ status: "error", error: { code: "not_found", source: "connection" } });
    expect(streams).toBe(2);
  });

  it("rejects ready and reports the error when attaching to an unknown session", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    client = follow(createAgentClient({ url: server.url, sessionId: "ses_missing" }));
    await expect(client.ready).rejects.toMatchObject({ code: "not_found" });
    expect(client.getSnapshot()).toMatchObject({ status: "error", connection: "closed", error: { code: "not_found" } });
  });

  it("closes for good on close(): no more events and no reconnects", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    client = follow(createAgentClient({ url: server.url, fetch: server.fetch, reconnect: fast }));
    await client.createSession();
    await waitFor(client, (s) => s.connection === "open");
    client.close();
    const closed = client.getSnapshot();
    expect(closed.connection).toBe("closed");
    await server.runtime.sendMessage(closed.sessionId!, "hello");
    await server.runtime.idle();
    expect(client.getSnapshot()).toBe(closed);
    expect(server.wire.filter((line) => line.endsWith("/events"))).toHaveLength(1);
  });
});
