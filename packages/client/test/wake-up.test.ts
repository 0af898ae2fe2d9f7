import { describe, expect, it, vi } from "vitest";
import { type AgentClient, createAgentClient } from "../src/index.js";
import { fakePage } from "./fake-page.js";
import { closedAfterEach, pickCall, startAgentServer, textOf, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
const running = closedAfterEach();

const page = fakePage();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const wakeUps = {
  online: () => page.window.dispatchEvent(new Event("online")),
  "pageshow from the back/forward cache": () =>
    page.window.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true })),
  "visibilitychange to visible": () => page.document.dispatchEvent(new Event("visibilitychange")),
};

/**
 * The server's event streams, which `freeze()` stops as a sleeping laptop's do: the open
 * ones stay open and nothing more comes through; a new one works. Records each stream's
 * Last-Event-ID.
 */
function freezable(target: Server) {
  const streams: { lastEventId: string | null; frozen: boolean }[] = [];
  const fetch = async (input: string, init?: RequestInit) => {
    const response = await target.fetch(input, init);
    if (!input.endsWith("/events") || !response.body) return response;
    const stream = { lastEventId: new Headers(init?.headers).get("last-event-id"), frozen: false };
    streams.push(stream);
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (stream.frozen) return new Promise<void>(() => {}); // until the client gives it up
        const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (stream.frozen) return new Promise<void>(() => {}); // frozen while this read waited: it is lost too
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    init?.signal?.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return {
    fetch,
    streams,
    freeze() {
      for (const stream of streams) stream.frozen = true;
    },
  };
}

/** A client of a new session following its stream; `streamSilenceMs` 3 s implies a 1 s heartbeat. */
async function openClient(server: Server, fetch: (input: string, init?: RequestInit) => Promise<Response>) {
  const { sessionId } = await server.runtime.createSession({ owner: "tester" });
  const client: AgentClient = running.add(
    createAgentClient({ url: server.url, fetch, sessionId, streamSilenceMs: 3_000, reconnect: { initialDelayMs: 5 } }),
  );
  client.subscribe(() => {});
  await waitFor(client, (s) => s.connection === "open");
  return { client, sessionId };
}

describe("waking up and coming back online", () => {
  it.each(Object.entries(wakeUps))(
    "reconnects at once on %s when the stream was silent longer than a heartbeat, resuming after the last event",
    async (_, wake) => {
      const server = running.add(await startAgentServer([{ text: "missed while asleep" }]));
      const { streams, fetch, freeze } = freezable(server);
      const { client, sessionId } = await openClient(server, fetch);
      const seen = client.getSnapshot().lastSeq;
      freeze();
      await server.runtime.sendMessage(sessionId, "hello");
      await server.runtime.idle();
      await pause(1_100); // a heartbeat and more without a word: the stream missed something
      expect(client.getSnapshot()).toMatchObject({ connection: "open", lastSeq: seen });

      wake();
      // Well before the 3 s silence timeout would have dropped the stream.
      const caught = await waitFor(client, (s) => textOf(s) === "missed while asleep", 1_000);
      expect(caught.connection).toBe("open");
      expect(streams.map((stream) => stream.lastEventId)).toEqual([String(seen), String(seen)]);
    },
  );

  it("keeps a stream that heard from the server within a heartbeat when the page is shown again", async () => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const { streams, fetch } = freezable(server);
    const { client } = await openClient(server, fetch);
    for (const wake of Object.values(wakeUps)) wake();
    await pause(50);
    expect(streams).toHaveLength(1);
    expect(client.getSnapshot().connection).toBe("open");
  });

  it("says offline instead of open while the browser is offline, and open again once something comes through", async () => {
    const server = running.add(await startAgentServer([{ text: "still here" }]));
    const { streams, fetch } = freezable(server);
    const { client, sessionId } = await openClient(server, fetch);

    page.window.dispatchEvent(new Event("offline"));
    expect(client.getSnapshot()).toMatchObject({ connection: "offline", status: "reconnecting" });
    page.window.dispatchEvent(new Event("online")); // the stream spoke within a heartbeat: nothing was missed
    expect(client.getSnapshot()).toMatchObject({ connection: "open", status: "idle" });

    page.window.dispatchEvent(new Event("offline"));
    await server.runtime.sendMessage(sessionId, "hello"); // the stream was fine after all (a local server)
    const shown = await waitFor(client, (s) => textOf(s) === "still here");
    expect(shown.connection).toBe("open");
    expect(streams).toHaveLength(1);
  });

  it("stops listening to the page when the last listener leaves", async () => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const { streams, fetch } = freezable(server);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    // A 200 ms heartbeat: the stream is silent for longer by the time the page comes back online.
    const client = running.add(createAgentClient({ url: server.url, fetch, sessionId, streamSilenceMs: 600 }));
    const leave = client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "open");
    leave();
    await pause(250);
    page.window.dispatchEvent(new Event("offline"));
    page.window.dispatchEvent(new Event("online"));
    await pause(20);
    expect(client.getSnapshot().connection).toBe("idle");
    expect(streams).toHaveLength(1);
  });
});

describe("a stream that looks open and is dead", () => {
  it("is reopened when it shows nothing within a heartbeat of an accepted answer, long before its silence timeout", async () => {
    const server = running.add(
      await startAgentServer([{ text: "Pick one.", toolCalls: [pickCall] }, { text: "Calm it is." }]),
    );
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    await server.runtime.sendMessage(sessionId, "make me a poster");
    await server.runtime.idle();
    const { streams, fetch, freeze } = freezable(server);
    // A 2 s heartbeat, and a silence timeout (6 s) the test does not wait for.
    const client = running.add(
      createAgentClient({
        url: server.url,
        fetch,
        sessionId,
        streamSilenceMs: 6_000,
        reconnect: { initialDelayMs: 5 },
      }),
    );
    client.subscribe(() => {});
    const [request] = (await waitFor(client, (s) => s.connection === "open" && s.pending.length === 1)).pending;
    const seen = client.getSnapshot().lastSeq;
    freeze(); // a dev proxy keeping the page's connection after the server behind it went away

    expect(await client.respond(request!, { templateId: "calm" })).toMatchObject({ ok: true, status: 202 });
    const caught = await waitFor(client, (s) => textOf(s) === "Calm it is.", 4_000);
    expect(caught.requests[request!.request.requestId]).toMatchObject({ status: "resolved" });
    expect(streams.map((stream) => stream.lastEventId)).toEqual([String(seen), String(seen)]);
  });

  it("is kept when the accepted answer's events come through", async () => {
    const server = running.add(
      await startAgentServer([{ text: "Pick one.", toolCalls: [pickCall] }, { text: "Calm it is." }]),
    );
    const { streams, fetch } = freezable(server);
    const { client } = await openClient(server, fetch);
    await client.send("make me a poster");
    const [request] = (await waitFor(client, (s) => s.pending.length === 1)).pending;
    expect((await client.respond(request!, { templateId: "calm" })).ok).toBe(true);
    await waitFor(client, (s) => textOf(s) === "Calm it is.");
    await pause(1_500); // past the check, a heartbeat after the answer
    expect(streams).toHaveLength(1);
    expect(client.getSnapshot().connection).toBe("open");
  });
});

describe("an answer another tab gave first", () => {
  it("catches up when the server says the request was already resolved, showing the real outcome", async () => {
    const server = running.add(
      await startAgentServer([{ text: "Pick one.", toolCalls: [pickCall] }, { text: "Calm it is." }]),
    );
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    await server.runtime.sendMessage(sessionId, "make me a poster");
    await server.runtime.idle();
    const stale = freezable(server);
    // Its stream times out only after a minute: only the 409 can make it catch up in time.
    const behind = running.add(
      createAgentClient({ url: server.url, fetch: stale.fetch, sessionId, streamSilenceMs: 60_000 }),
    );
    const other = running.add(createAgentClient({ url: server.url, fetch: server.fetch, sessionId }));
    behind.subscribe(() => {});
    other.subscribe(() => {});
    const [request] = (await waitFor(behind, (s) => s.connection === "open" && s.pending.length === 1)).pending;
    await waitFor(other, (s) => s.pending.length === 1);
    stale.freeze();

    expect((await other.respond(request!, { templateId: "calm" })).ok).toBe(true);
    const refused = await behind.respond(request!, { templateId: "bold" });
    expect(refused).toMatchObject({ ok: false, error: { code: "already_resolved" } });
    // Shown as settled at once, with the answer that won (the 409's details), not as an error to answer again.
    expect(behind.getSnapshot().requests[request!.request.requestId]).toMatchObject({
      status: "resolved",
      resolution: { action: "accept", value: { templateId: "calm" } },
    });

    // And its stream, behind, reconnects and catches up: the turn the answer resumed is shown.
    const caught = await waitFor(behind, (s) => textOf(s) === "Calm it is.", 1_500);
    expect(caught.requests[request!.request.requestId]).toMatchObject({
      status: "resolved",
      resolution: { action: "accept", value: { templateId: "calm" } },
    });
    expect(stale.streams).toHaveLength(2);
  });
});

describe("a stream stopped by a refusal", () => {
  it("opens again when the person acts, so what they sent shows (a 401 before the page refreshed its token)", async () => {
    const server = running.add(
      await startAgentServer([{ text: "Pick one.", toolCalls: [pickCall] }, { text: "Calm it is." }]),
    );
    let refusing = false;
    let drop: (() => void) | undefined;
    const fetch = async (input: string, init?: RequestInit) => {
      const stream = input.includes("/events");
      if (stream && refusing) {
        return Response.json({ error: { code: "unauthorized", message: "Sign in first." } }, { status: 401 });
      }
      const response = await server.fetch(input, init);
      if (!stream || !response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          drop = () => {
            controller.error(new TypeError("network connection lost"));
            void reader.cancel().catch(() => {});
          };
        },
        async pull(controller) {
          const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const { client } = await openClient(server, fetch);
    await client.send("make me a poster");
    const [request] = (await waitFor(client, (s) => s.pending.length === 1)).pending;

    // The token expired: the stream ends, and its reconnect is refused for good.
    refusing = true;
    drop?.();
    // Read without subscribing again: a page's one subscriber stays, and a new one would start the stream.
    await vi.waitFor(() => expect(client.getSnapshot().connection).toBe("closed"));
    expect(client.getSnapshot().error).toMatchObject({ code: "unauthorized", source: "connection" });
    // Waking up does not end a refusal: the page goes on saying why, and asks nothing.
    for (const wake of Object.values(wakeUps)) wake();
    await pause(50);
    expect(client.getSnapshot()).toMatchObject({ status: "error", connection: "closed" });

    // The page refreshed its token; the person answers.
    refusing = false;
    expect(await client.respond(request!, { templateId: "calm" })).toMatchObject({ ok: true, status: 202 });
    await vi.waitFor(() => expect(textOf(client.getSnapshot())).toBe("Calm it is."), { timeout: 5_000 });
    const done = client.getSnapshot();
    expect(done.requests[request!.request.requestId]).toMatchObject({ status: "resolved" });
    expect(done).toMatchObject({ connection: "open", error: undefined });
  });
});
