import { describe, expect, it } from "vitest";
import { createAgentClient } from "../src/index.js";
import { closedAfterEach, pickCall, startAgentServer, textOf, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
const running = closedAfterEach();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server behind a switch: while `down`, every request gets `answer()` (a refused connection by default). */
function outage(target: Server, answer: () => Response = () => Promise.reject(new TypeError("fetch failed")) as never) {
  const api = { down: true, snapshotLoads: 0, streams: 0, loadTimes: [] as number[] };
  const fetch = async (input: string, init?: RequestInit) => {
    const path = new URL(input).pathname;
    if ((init?.method ?? "GET") === "GET" && /\/sessions\/[^/]+$/.test(path)) {
      api.snapshotLoads++;
      api.loadTimes.push(performance.now());
    }
    if (path.endsWith("/events")) api.streams++;
    return api.down ? answer() : target.fetch(input, init);
  };
  return { api, fetch };
}

const errorAnswer = (status: number, code: string) => () =>
  new Response(JSON.stringify({ error: { code, message: `${code}, as the test says` } }), {
    status,
    headers: { "content-type": "application/json" },
  });

describe("loading a session's snapshot", () => {
  it("keeps trying while the API is unreachable, says reconnecting with the error, and recovers once it is back", async () => {
    const server = running.add(await startAgentServer([{ text: "back again" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { api, fetch } = outage(server);
    const reconnect = { initialDelayMs: 5, maxDelayMs: 20 };
    const client = running.add(createAgentClient({ url: server.url, fetch, sessionId, retry: false, reconnect }));
    client.subscribe(() => {});

    const down = await waitFor(client, (s) => s.connection === "reconnecting" && api.snapshotLoads >= 4);
    expect(down).toMatchObject({
      status: "reconnecting",
      hydrated: false,
      error: { code: "network", source: "connection" },
    });
    expect(api.streams).toBe(0);

    api.down = false;
    const back = await waitFor(client, (s) => s.connection === "open");
    expect(back).toMatchObject({ status: "idle", hydrated: true, error: undefined });
    await expect(client.ready).resolves.toBeUndefined();
    await server.runtime.sendMessage(sessionId, "still there?");
    expect(textOf(await waitFor(client, (s) => textOf(s) === "back again"))).toBe("back again");
  });

  it("backs off between tries, doubling up to the stream's longest wait", async () => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { api, fetch } = outage(server, () => new Response("<h1>Bad Gateway</h1>", { status: 502 }));
    const reconnect = { initialDelayMs: 20, maxDelayMs: 40, jitter: 0 };
    const client = running.add(createAgentClient({ url: server.url, fetch, sessionId, retry: false, reconnect }));
    client.subscribe(() => {});
    for (let waited = 0; api.loadTimes.length < 6 && waited < 10_000; waited += 10) await pause(10);

    // A busy machine only makes the waits longer, so each gap is at least its backoff: 20 ms,
    // then 40 ms each (backoffDelay's own test shows the doubling stops there).
    const gaps = api.loadTimes.slice(1, 6).map((at, index) => at - (api.loadTimes[index] as number));
    expect(gaps).toHaveLength(5);
    expect(gaps.map((gap, index) => gap >= (index === 0 ? 20 : 40) - 2)).toEqual([true, true, true, true, true]);
    expect(client.getSnapshot()).toMatchObject({ status: "reconnecting", error: { code: "unavailable" } });
  });

  it.each([
    [401, "unauthorized"],
    [403, "forbidden"],
    [404, "not_found"],
  ])("stops and says so when the snapshot is refused with %i, which trying again cannot fix", async (status, code) => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const { api, fetch } = outage(server, errorAnswer(status, code));
    const client = running.add(
      createAgentClient({ url: server.url, fetch, sessionId: "ses_any", reconnect: { initialDelayMs: 5 } }),
    );
    client.subscribe(() => {});
    await expect(client.ready).rejects.toMatchObject({ code });
    await pause(50);
    expect(client.getSnapshot()).toMatchObject({ status: "error", connection: "closed", error: { code } });
    expect(api.snapshotLoads).toBe(1);
  });

  it("stops and says so when the snapshot is not the protocol's (a server of another version)", async () => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const other = () => new Response(JSON.stringify({ version: 9, session: {} }), { status: 200 });
    const { api, fetch } = outage(server, other);
    const client = running.add(
      createAgentClient({ url: server.url, fetch, sessionId: "ses_any", reconnect: { initialDelayMs: 5 } }),
    );
    client.subscribe(() => {});
    await expect(client.ready).rejects.toMatchObject({ code: "bad_response" });
    await pause(50);
    expect(client.getSnapshot()).toMatchObject({ status: "error", connection: "closed" });
    expect(api.snapshotLoads).toBe(1);
  });

  it("stops trying when the last listener leaves, and on close()", async () => {
    const server = running.add(await startAgentServer([{ text: "hi" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { api, fetch } = outage(server);
    const client = running.add(
      createAgentClient({ url: server.url, fetch, sessionId, retry: false, reconnect: { initialDelayMs: 5 } }),
    );
    const leave = client.subscribe(() => {});
    await waitFor(client, () => api.snapshotLoads >= 2);
    leave();
    await pause(20);
    const loads = api.snapshotLoads;
    await pause(60);
    expect(api.snapshotLoads).toBe(loads);

    client.subscribe(() => {});
    await waitFor(client, () => api.snapshotLoads >= loads + 2);
    client.close();
    await pause(20);
    const closed = api.snapshotLoads;
    await pause(60);
    expect(api.snapshotLoads).toBe(closed);
    expect(client.getSnapshot().connection).toBe("closed");
  });
});

describe("an explicit action while the connection is down", () => {
  // The next try by itself is a minute away: only the action can bring the connection back in time.
  const minute = { initialDelayMs: 60_000, jitter: 0 };

  /** A subscribed client of the session whose first snapshot load failed: its next try is a minute away. */
  async function openedWhileDown(server: Server, sessionId: string) {
    const { api, fetch } = outage(server);
    const client = running.add(
      createAgentClient({ url: server.url, fetch, sessionId, retry: false, reconnect: minute }),
    );
    client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "reconnecting");
    return { api, client };
  }

  it("loads the snapshot at once when the person sends a message, and shows the reply", async () => {
    const server = running.add(await startAgentServer([{ text: "the reply" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    const { api, client } = await openedWhileDown(server, sessionId);

    api.down = false;
    const sent = await client.send("are you there?");
    expect(sent.ok).toBe(true);
    const done = await waitFor(client, (s) => s.session.status === "idle" && textOf(s) === "the reply");
    expect(done).toMatchObject({ connection: "open", error: undefined, outbox: [] });
  });

  it("loads the snapshot at once when the person answers, checking the answer against the loaded request", async () => {
    const server = running.add(await startAgentServer([{ toolCalls: [pickCall] }, { text: "calm it is" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    await server.runtime.sendMessage(sessionId, "make me a poster");
    await server.runtime.idle();
    const [open] = (await server.runtime.getSnapshot(sessionId)).pending;
    const { api, client } = await openedWhileDown(server, sessionId);

    api.down = false;
    const refused = await client.respond(open!.requestId, { templateId: 7 });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_answer" } });
    const answered = await client.respond(open!.requestId, { templateId: "calm" });
    expect(answered.ok).toBe(true);
    const done = await waitFor(client, (s) => s.session.status === "idle" && textOf(s) === "calm it is");
    expect(done.requests[open!.requestId]?.status).toBe("resolved");
  });

  it("reconnects a stream that waits to reconnect at once when the person sends a message", async () => {
    const server = running.add(await startAgentServer([{ text: "the reply" }]));
    const { sessionId } = await server.runtime.createSession({ owner: "tester" });
    let streams = 0;
    const fetch = async (input: string, init?: RequestInit) => {
      if (input.endsWith("/events") && ++streams === 1) {
        const response = await server.fetch(input, init);
        await response.body?.cancel();
        return new Response("", { status: 200, headers: { "content-type": "text/event-stream" } });
      }
      return server.fetch(input, init);
    };
    const client = running.add(createAgentClient({ url: server.url, fetch, sessionId, reconnect: minute }));
    client.subscribe(() => {});
    await waitFor(client, (s) => s.connection === "reconnecting");

    await client.send("hello");
    await waitFor(client, (s) => s.session.status === "idle" && textOf(s) === "the reply");
    expect(streams).toBe(2);
  });
});
