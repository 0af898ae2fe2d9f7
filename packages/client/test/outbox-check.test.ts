import { MAX_TAKEN_KEYS } from "@hitl-kit/protocol";
import { describe, expect, it, vi } from "vitest";
import { createAgentClient, createApiClient, type UnsentMessage } from "../src/index.js";
import { closedAfterEach, follow, memoryStorage, startAgentServer, waitFor } from "./helpers.js";

// A message kept unsent by an earlier page comes back on the next one. When the history the
// page loaded does not reach back far enough to show whether the server took it, the client
// asks the server (GET /sessions/:id/messages?key=) instead of saying "not sent".

const running = closedAfterEach();
let server: Awaited<ReturnType<typeof startAgentServer>> | undefined;

const interrupted = { code: "interrupted", message: "The chat closed before the server confirmed it." };

/**
 * A session where the server took "refund 1500" under `refund-key`, then went on for
 * `later` more turns (30: more than the first page of history, 50 messages), each message
 * keyed as clients send them. The page before kept `kept` as unsent, in a storage.
 */
async function keptSession(later: number, kept: UnsentMessage[]) {
  server = running.add(await startAgentServer(() => ({ text: "Noted." })));
  const { runtime } = server;
  const { sessionId } = await runtime.createSession({ owner: "tester" });
  await runtime.sendMessage(sessionId, "refund 1500", { key: "refund-key" });
  await runtime.idle();
  for (let turn = 0; turn < later; turn++) {
    await runtime.sendMessage(sessionId, `turn ${turn}`, { key: `later-${turn}` });
    await runtime.idle();
  }
  const { items, outboxStorage } = memoryStorage();
  const item = `hitl-kit:outbox:${sessionId}`;
  items.set(item, JSON.stringify({ messages: kept }));
  const refundStarts = async () =>
    (await runtime.readEvents(sessionId, 0)).filter(
      (event) => event.type === "turn.started" && event.idempotencyKey === "refund-key",
    );
  return { sessionId, items, item, outboxStorage, refundStarts };
}

/**
 * The next page's client, whose `GET /messages?key=` waits for `release()` and then gets
 * what `answer` gives (a throw is no answer; `undefined` lets the server answer). `wire`
 * logs every request but the event stream's.
 */
function nextPage(
  { sessionId, outboxStorage }: Awaited<ReturnType<typeof keptSession>>,
  answer: () => Promise<Response | undefined> = async () => undefined,
) {
  const wire: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch = async (input: string, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    const url = new URL(input);
    if (!url.pathname.endsWith("/events")) wire.push(`${method} ${url.pathname}${url.search}`);
    if (method === "GET" && url.pathname.endsWith("/messages")) {
      await released;
      const instead = await answer();
      if (instead) return instead;
    }
    return server!.fetch(input, init);
  };
  const client = running.add(
    createAgentClient({
      url: server!.url,
      fetch,
      sessionId,
      outboxStorage,
      retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 },
    }),
  );
  follow(client);
  const asked = () => wire.filter((line) => line.includes("/messages"));
  return { client, wire, asked, release };
}

describe("a kept message older than the history loaded", () => {
  it("is asked about, shown as checking meanwhile (not sent, not sending), and leaves the outbox and the storage once the server says it took it", async () => {
    const session = await keptSession(30, [{ key: "refund-key", text: "refund 1500" }]);
    const { client, wire, asked, release } = nextPage(session);
    await client.ready;

    const asking = client.getSnapshot();
    expect(asking.session.before).toBeDefined();
    expect(asking.messages.some((message) => message.idempotencyKey === "refund-key")).toBe(false);
    expect(asking.outbox).toEqual([{ key: "refund-key", text: "refund 1500", status: "checking" }]);
    // Nothing is on its way: the chat is idle, and the person may send.
    expect(asking.status).toBe("idle");
    await vi.waitFor(() =>
      expect(asked()).toEqual([`GET /api/agent/sessions/${session.sessionId}/messages?key=refund-key`]),
    );

    release();
    await waitFor(client, (s) => s.outbox.length === 0);
    expect(session.items.has(session.item)).toBe(false);
    // Nothing was sent again: one turn for it, as before.
    expect(wire.filter((line) => line.startsWith("POST"))).toEqual([]);
    expect(await session.refundStarts()).toHaveLength(1);
  });

  it("shows one the server never took as not sent, with the reason it was kept for, and clears those it took", async () => {
    const refused = { code: "network", message: "No answer came back." };
    const session = await keptSession(30, [
      { key: "refund-key", text: "refund 1500" },
      { key: "never-key", text: "refund 300" },
      { key: "refused-key", text: "refund 20", error: refused },
    ]);
    const { client, asked, release } = nextPage(session);
    release();
    const state = await waitFor(client, (s) => s.hydrated && s.outbox.every((message) => message.status === "failed"));
    expect(state.outbox).toEqual([
      { key: "never-key", text: "refund 300", status: "failed", error: interrupted },
      { key: "refused-key", text: "refund 20", status: "failed", error: refused },
    ]);
    expect(JSON.parse(session.items.get(session.item)!)).toEqual({
      messages: [
        { key: "never-key", text: "refund 300", error: interrupted },
        { key: "refused-key", text: "refund 20", error: refused },
      ],
    });
    expect(asked()).toEqual([
      `GET /api/agent/sessions/${session.sessionId}/messages?key=refund-key&key=never-key&key=refused-key`,
    ]);
  });

  it("keeps the reason it was kept for while it is checked: a page reloaded meanwhile shows that reason, not 'closed before confirmed'", async () => {
    const refused = { code: "turn_running", message: "A turn is already running in this session." };
    const session = await keptSession(30, [{ key: "refused-key", text: "refund 20", error: refused }]);
    // The check never answers on this page: it is reloaded first.
    const first = nextPage(session);
    await waitFor(first.client, (s) => s.outbox[0]?.status === "checking");
    await vi.waitFor(() => expect(first.asked()).toHaveLength(1));
    // Being checked, it shows no error; the storage keeps the one it came with.
    expect(first.client.getSnapshot().outbox).toEqual([{ key: "refused-key", text: "refund 20", status: "checking" }]);
    expect(JSON.parse(session.items.get(session.item)!)).toEqual({
      messages: [{ key: "refused-key", text: "refund 20", error: refused }],
    });
    first.client.close();

    const reloaded = nextPage(session);
    reloaded.release();
    const state = await waitFor(reloaded.client, (s) => s.hydrated && s.outbox[0]?.status === "failed");
    expect(state.outbox).toEqual([{ key: "refused-key", text: "refund 20", status: "failed", error: refused }]);
    first.release(); // the first page's check, answered after the reload, changes nothing here
    expect(JSON.parse(session.items.get(session.item)!)).toEqual({
      messages: [{ key: "refused-key", text: "refund 20", error: refused }],
    });
  });

  it("shows every one as not sent when the server cannot be asked, as without asking: the person decides", async () => {
    const session = await keptSession(30, [{ key: "refund-key", text: "refund 1500" }]);
    const { client, wire, asked, release } = nextPage(session, async () => {
      throw new TypeError("fetch failed");
    });
    release();
    const state = await waitFor(client, (s) => s.hydrated && s.outbox[0]?.status === "failed");
    expect(state.outbox).toEqual([{ key: "refund-key", text: "refund 1500", status: "failed", error: interrupted }]);
    expect(state.status).toBe("idle");
    expect(asked().length).toBeGreaterThan(1); // resent, as any read
    expect(wire.filter((line) => line.startsWith("POST"))).toEqual([]);
    expect(JSON.parse(session.items.get(session.item)!)).toEqual({
      messages: [{ key: "refund-key", text: "refund 1500", error: interrupted }],
    });
  });

  it("from a server without the read (405) shows as not sent; sent again, it leaves the outbox and starts no turn", async () => {
    const session = await keptSession(30, [{ key: "refund-key", text: "refund 1500" }]);
    const { client, release } = nextPage(session, async () =>
      Response.json({ error: { code: "method_not_allowed", message: "Use POST." } }, { status: 405 }),
    );
    release();
    const state = await waitFor(client, (s) => s.hydrated && s.outbox[0]?.status === "failed");
    expect(state.outbox).toEqual([{ key: "refund-key", text: "refund 1500", status: "failed", error: interrupted }]);

    expect(await client.send("refund 1500")).toMatchObject({ ok: true, status: 200 });
    // A repeat of a turn long over: nothing will stream for it, so it is not left "on its way".
    expect(client.getSnapshot()).toMatchObject({ outbox: [], status: "idle", stopping: false });
    await server!.runtime.idle();
    expect(await session.refundStarts()).toHaveLength(1);
  });

  it("is not asked about when the history loaded shows it, or is the whole history", async () => {
    const session = await keptSession(0, [
      { key: "refund-key", text: "refund 1500" },
      { key: "never-key", text: "refund 300" },
    ]);
    const { client, asked } = nextPage(session);
    await client.ready;
    expect(client.getSnapshot().outbox).toEqual([
      { key: "never-key", text: "refund 300", status: "failed", error: interrupted },
    ]);
    expect(asked()).toEqual([]);
  });
});

describe("ApiClient.findTakenMessages", () => {
  it(`asks about more than ${MAX_TAKEN_KEYS} keys in several reads, and answers each key taken once`, async () => {
    server = running.add(await startAgentServer(() => ({ text: "Noted." })));
    const { runtime } = server;
    const { sessionId } = await runtime.createSession({ owner: "tester" });
    const turns: string[] = [];
    for (const key of ["k-3", "k-30"]) {
      turns.push((await runtime.sendMessage(sessionId, key, { key })).turnId);
      await runtime.idle();
    }
    const api = createApiClient({ url: server.url, fetch: server.fetch });
    const keys = [...Array.from({ length: 45 }, (_, index) => `k-${index}`), "k-3"];
    expect(await api.findTakenMessages(sessionId, keys)).toEqual([
      { key: "k-3", turnId: turns[0] },
      { key: "k-30", turnId: turns[1] },
    ]);
    expect(server.wire.filter((line) => line.endsWith("/messages"))).toHaveLength(3);
    await expect(api.findTakenMessages("ses_nope", ["k-3"])).rejects.toMatchObject({ code: "not_found", status: 404 });
  });
});
