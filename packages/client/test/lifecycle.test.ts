import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient } from "../src/index.js";
import { startAgentServer, textOf, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
let server: Server | undefined;
let client: AgentClient | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

/** The server's fetch, counting event streams while their bodies are open. */
function countingStreams(target: Server) {
  const streams = { opened: 0, open: 0 };
  const fetch = async (input: string, init?: RequestInit) => {
    const response = await target.fetch(input, init);
    if (!input.endsWith("/events") || !response.body) return response;
    streams.opened++;
    streams.open++;
    const reader = response.body.getReader();
    let counted = true;
    const release = () => {
      if (counted) streams.open--;
      counted = false;
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      },
      cancel(reason) {
        release();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { streams, fetch };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("a client's lifecycle", () => {
  it("does no I/O when it is created, with or without a session id", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    createAgentClient({ url: server.url, fetch: server.fetch });
    createAgentClient({ url: server.url, fetch: server.fetch, sessionId: "ses_anything" });
    await tick();
    expect(server.wire).toEqual([]);
  });

  it("starts with its first subscriber and shares one stream among all of them", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { streams, fetch } = countingStreams(server);
    client = createAgentClient({ url: server.url, fetch, sessionId });
    client.subscribe(() => {});
    client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "open");
    expect(server.wire).toEqual([
      `GET /api/agent/sessions/${sessionId}`,
      `GET /api/agent/sessions/${sessionId}/events`,
    ]);
    expect(streams).toEqual({ opened: 1, open: 1 });
  });

  it("keeps its stream when the last subscriber leaves and one comes back at once (StrictMode)", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { streams, fetch } = countingStreams(server);
    client = createAgentClient({ url: server.url, fetch, sessionId });
    const leave = client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "open");
    leave();
    client.subscribe(() => {});
    await tick();
    expect(streams).toEqual({ opened: 1, open: 1 });
    expect(client.getSnapshot().connection).toBe("open");
  });

  it("stops its stream when the last subscriber leaves, and resumes after the last event on the next", async () => {
    server = await startAgentServer([{ text: "first reply" }, { text: "second reply" }]);
    const { streams, fetch } = countingStreams(server);
    client = createAgentClient({ url: server.url, fetch });
    const leave = client.subscribe(() => {});
    await client.send("one");
    await waitFor(client, (s) => s.status === "idle" && textOf(s) === "first reply");
    leave();
    await tick();
    expect(streams.open).toBe(0);
    expect(client.getSnapshot().connection).toBe("idle");

    const sessionId = client.getSnapshot().sessionId!;
    const seen = client.getSnapshot().lastSeq;
    await server.runtime.sendMessage(sessionId, "two");
    await server.runtime.idle();
    expect(client.getSnapshot().lastSeq).toBe(seen);

    client.subscribe(() => {});
    const resumed = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "second reply");
    expect(resumed.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(server.wire.filter((line) => line === `GET /api/agent/sessions/${sessionId}`)).toEqual([]);
    expect(streams).toEqual({ opened: 2, open: 1 });
  });

  it("opens one stream when a listener leaves and comes back while the first snapshot still loads, and close() ends it", async () => {
    server = await startAgentServer([{ text: "hi" }]);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const counted = countingStreams(server);
    // The snapshot takes 40 ms, so the deferred stop runs and a second start begins while the first load is in flight.
    const fetch = async (input: string, init?: RequestInit) => {
      if (!input.endsWith("/events")) await new Promise((resolve) => setTimeout(resolve, 40));
      return counted.fetch(input, init);
    };
    client = createAgentClient({ url: server.url, fetch, sessionId });
    client.subscribe(() => {})();
    await new Promise((resolve) => setTimeout(resolve, 5));
    client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "open");
    await new Promise((resolve) => setTimeout(resolve, 80)); // both loads are done
    expect(counted.streams).toEqual({ opened: 1, open: 1 });
    expect(client.getSnapshot().connection).toBe("open");
    client.close();
    await tick();
    expect(counted.streams.open).toBe(0);
  });

  it("creates one session for concurrent sends, and none before the first", async () => {
    server = await startAgentServer([{ text: "a" }]);
    client = createAgentClient({ url: server.url, fetch: server.fetch });
    client.subscribe(() => {});
    await tick();
    expect(server.wire).toEqual([]);
    const [first, second] = await Promise.all([client.send("one"), client.send("two")]);
    expect(first.ok || second.ok).toBe(true);
    expect(server.wire.filter((line) => line === "POST /api/agent/sessions")).toHaveLength(1);
    expect(await server.runtime.listSessions()).toHaveLength(1);
  });

  it("aborts a snapshot load in flight when closed, without an error, and ready rejects as aborted", async () => {
    server = await startAgentServer([{ text: "a" }]);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    let aborted: unknown;
    // The load never answers (a hung connection, or a browser offline): only its signal ends it.
    const fetch = (_input: string, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => {
          aborted = init.signal?.reason;
          reject(init.signal?.reason);
        });
      });
    client = createAgentClient({ url: server.url, fetch, sessionId });
    client.subscribe(() => {});
    await tick();
    client.close();
    await expect(client.ready).rejects.toMatchObject({ code: "aborted" });
    expect(aborted).toBeDefined();
    await tick();
    expect(client.getSnapshot()).toMatchObject({ connection: "closed", error: undefined });
  });

  it("stays closed after close(), whoever subscribes", async () => {
    server = await startAgentServer([{ text: "a" }]);
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    client = createAgentClient({ url: server.url, fetch: server.fetch, sessionId });
    client.close();
    client.subscribe(() => {});
    await tick();
    expect(server.wire).toEqual([]);
    expect(client.getSnapshot().connection).toBe("closed");
  });
});
