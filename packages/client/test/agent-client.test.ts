import type { Script, ScriptedModelOptions } from "@hitl-kit/server";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient, type OutboxStorage, type RequestStatus } from "../src/index.js";
import { follow, memoryStorage, pickCall, startAgentServer, textOf, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
let server: Server | undefined;
const clients: AgentClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

async function connect(script: Script, sessionId?: string, modelOptions: ScriptedModelOptions = {}) {
  server ??= await startAgentServer(script, modelOptions);
  const client = follow(
    createAgentClient({ url: server.url, fetch: server.fetch, ...(sessionId ? { sessionId } : {}) }),
  );
  clients.push(client);
  await client.ready;
  return client;
}

/** Sends a message and waits until the turn parks on the picker. */
async function parkPicker(client: AgentClient) {
  await client.send("make me a poster");
  const state = await waitFor(client, (s) => s.status === "waiting" && s.pending.length === 1);
  return state.pending[0]!.request.requestId;
}

const pickerScript = [{ text: "Pick a template.", toolCalls: [pickCall] }, { text: "Nice choice." }];

describe("AgentClient against the real fetch handler", () => {
  it("creates a session with the first message and streams the model's text", async () => {
    const client = await connect([{ text: "Hello there, person." }]);
    expect(client.getSnapshot()).toMatchObject({ sessionId: undefined, status: "idle", connection: "idle" });
    expect(server!.wire).toEqual([]);
    const result = await client.send("hi");
    expect(client.getSnapshot().sessionId).toMatch(/^ses_/);
    expect(result).toMatchObject({ ok: true, status: 202, body: { turnId: expect.any(String) } });
    const state = await waitFor(client, (s) => s.status === "idle" && s.messages.length === 2);
    expect(state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(textOf(state)).toBe("Hello there, person.");
    expect(state.connection).toBe("open");
  });

  it("lists a parked client tool in pending, and completes the turn once it is answered", async () => {
    const client = await connect(pickerScript);
    const requestId = await parkPicker(client);
    const parked = client.getSnapshot();
    expect(parked.pending[0]).toMatchObject({
      status: "pending",
      request: { toolName: "pick_template", kind: "input" },
    });
    expect(parked.messages.at(-1)?.parts.at(-1)).toMatchObject({ type: "tool", state: "awaiting-input", requestId });

    const seen: RequestStatus[] = [];
    client.subscribe((state) => {
      const status = state.requests[requestId]?.status;
      if (status && status !== seen.at(-1)) seen.push(status);
    });
    const result = await client.respond(requestId, { templateId: "calm" });
    expect(result.ok).toBe(true);
    const done = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Nice choice.");
    expect(seen).toEqual(["submitting", "resolved"]);
    expect(done.requests[requestId]).toMatchObject({
      status: "resolved",
      resolution: { value: { templateId: "calm" } },
    });
    expect(done.pending).toEqual([]);
    expect(done.messages.flatMap((message) => message.parts)).toContainEqual(
      expect.objectContaining({ type: "tool", state: "done", outcome: "ok", output: { templateId: "calm" } }),
    );
  });

  it("declines a request with a reason, and the turn goes on", async () => {
    const client = await connect(pickerScript);
    const requestId = await parkPicker(client);
    await client.decline(requestId, "none of these");
    const done = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Nice choice.");
    expect(done.requests[requestId]).toMatchObject({
      status: "declined",
      resolution: { action: "decline", reason: "none of these" },
    });
  });

  it("refuses an answer that fails the answer schema without sending it", async () => {
    const client = await connect(pickerScript);
    const requestId = await parkPicker(client);
    const result = await client.respond(requestId, { templateId: "" });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_answer" } });
    expect(client.getSnapshot().requests[requestId]).toMatchObject({
      status: "error",
      error: { code: "invalid_answer", issues: [{ path: ["templateId"] }] },
    });
    expect(client.getSnapshot().pending).toHaveLength(1);
    expect(server!.wire.filter((line) => line.endsWith("/responses"))).toEqual([]);
    const events = await server!.runtime.readEvents(client.getSnapshot().sessionId!, 0);
    expect(events.some((event) => event.type === "input.resolved")).toBe(false);
  });

  it("reopens a request with the server's message when the server refuses the answer with 422", async () => {
    const client = await connect(pickerScript);
    const requestId = await parkPicker(client);
    const result = await client.respond(requestId, { templateId: "retro" });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_answer" } });
    const refused = client.getSnapshot().requests[requestId];
    expect(refused?.status).toBe("error");
    expect(refused?.error?.message).toMatch(/answer schema of pick_template/);
    expect(refused?.error?.issues).toEqual([{ path: [], message: "The retro template is retired." }]);

    await client.respond(requestId, { templateId: "bold" });
    const done = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Nice choice.");
    expect(done.requests[requestId]).toMatchObject({
      status: "resolved",
      resolution: { value: { templateId: "bold" } },
    });
  });

  it("answers a different second answer with 409 and keeps the first resolution", async () => {
    const client = await connect(pickerScript);
    const requestId = await parkPicker(client);
    await client.respond(requestId, { templateId: "calm" });
    await waitFor(client, (s) => s.requests[requestId]?.status === "resolved");

    const same = await client.respond(requestId, { templateId: "calm" });
    expect(same).toMatchObject({ ok: true, status: 200 });
    const other = await client.respond(requestId, { templateId: "bold" });
    expect(other).toMatchObject({ ok: false, error: { code: "already_resolved" } });
    expect(client.getSnapshot().requests[requestId]).toMatchObject({
      status: "resolved",
      resolution: { value: { templateId: "calm" } },
    });
  });

  it("shows the pending request of a reloaded session as soon as it is ready, and completes the turn from it", async () => {
    const first = await connect(pickerScript);
    const requestId = await parkPicker(first);
    first.close();

    const reloaded = await connect(pickerScript, first.getSnapshot().sessionId);
    const state = reloaded.getSnapshot();
    expect(state).toMatchObject({ status: "waiting", lastSeq: first.getSnapshot().lastSeq });
    expect(state.pending.map((request) => request.request.requestId)).toEqual([requestId]);
    expect(textOf(state)).toBe("Pick a template.");

    await reloaded.respond(requestId, { templateId: "bold" });
    const done = await waitFor(reloaded, (s) => s.status === "idle" && textOf(s) === "Nice choice.");
    expect(done.requests[requestId]?.status).toBe("resolved");
  });

  it("keeps a send refused while a turn runs in the outbox as failed, and cancelTurn() ends the turn", async () => {
    const words = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    const client = await connect([{ text: words }], undefined, { chunkDelayMs: 20 });
    await client.send("write a lot");
    const second = await client.send("and another");
    expect(second).toMatchObject({ ok: false, error: { code: "turn_running" } });
    // The first leaves the outbox once the stream shows its turn; the refused one stays.
    const refused = await waitFor(client, (s) => s.status === "streaming");
    expect(refused).toMatchObject({
      error: undefined,
      outbox: [{ text: "and another", status: "failed", error: { code: "turn_running" } }],
    });

    const cancelling = client.cancelTurn();
    expect(client.getSnapshot().stopping).toBe(true);
    expect(await cancelling).toMatchObject({ ok: true, status: 202 });
    // Everything the server wrote, up to the cancelled turn, has reached the client.
    await server!.runtime.idle();
    const { lastSeq } = await server!.runtime.getSnapshot(client.getSnapshot().sessionId!);
    const stopped = await waitFor(client, (s) => s.lastSeq === lastSeq && s.status !== "submitting");
    expect(stopped.session.status).toBe("idle");
    expect(stopped.stopping).toBe(false);
    expect(stopped.messages.at(-1)?.status).toBe("complete");
    expect(textOf(stopped).length).toBeLessThan(words.length);
  });

  it("cancelTurn() stops the turn it shows, never a later one another tab started", async () => {
    const parksTwice = [
      { text: "Pick a template.", toolCalls: [pickCall] },
      { text: "Pick another.", toolCalls: [pickCall] },
    ];
    const stale = await connect(parksTwice);
    await parkPicker(stale);
    const sessionId = stale.getSnapshot().sessionId!;
    const shownTurn = stale.getSnapshot().turnId!;
    stale.close(); // this tab stops following: it will not see the next turn

    const other = await connect(parksTwice, sessionId);
    await parkPicker(other); // a new message: the first turn is cancelled, a second one parks
    const laterTurn = other.getSnapshot().turnId!;
    expect(laterTurn).not.toBe(shownTurn);

    expect(await stale.cancelTurn()).toMatchObject({ ok: true, status: 202 });
    const kept = await server!.runtime.getSnapshot(sessionId);
    expect(kept).toMatchObject({ status: "waiting", pending: [expect.anything()] });

    expect(await other.cancelTurn()).toMatchObject({ ok: true, status: 202 });
    await waitFor(other, (s) => s.session.status === "idle" && s.pending.length === 0);
  });

  it("deletes its session: the parked request is cancelled on the server, the client closes, the session is gone", async () => {
    const client = await connect(pickerScript);
    await parkPicker(client);
    const sessionId = client.getSnapshot().sessionId!;
    expect(await client.deleteSession()).toMatchObject({ ok: true, status: 204 });
    expect(client.getSnapshot().connection).toBe("closed");
    expect(server!.wire.at(-1)).toBe(`DELETE /api/agent/sessions/${sessionId}`);
    await expect(server!.runtime.getSnapshot(sessionId)).rejects.toMatchObject({ code: "not_found" });

    const again = createAgentClient({ url: server!.url, sessionId });
    clients.push(again);
    expect(await again.deleteSession()).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(again.getSnapshot().error).toMatchObject({ code: "not_found", source: "delete" });
  });
});

describe("AgentClient when messages fail on the way", () => {
  const fast = { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 3 };
  type Fate = "lost" | "refused" | "hang" | ((request: Request) => Promise<void>);

  /**
   * A client whose `fetch` meets the fates queued for each message's text (or for
   * `POST /sessions`) in turn: `lost`
   * (the server takes it, the answer never comes back), `refused` (it never gets there),
   * `hang` (no answer until the attempt's timeout), or a function awaited before it goes
   * through.
   */
  async function flakyClient(
    script: Script,
    {
      listen = true,
      ...options
    }: { listen?: boolean; sessionId?: string; outboxStorage?: OutboxStorage; timeoutMs?: number } = {},
  ) {
    server ??= await startAgentServer(script);
    const through = server.fetch;
    const fates = new Map<string, Fate[]>();
    const keys: (string | null)[] = [];
    const creationKeys: (string | null)[] = [];
    const fetch = async (input: string, init?: RequestInit) => {
      const request = new Request(input, init);
      const creating = request.method === "POST" && input.endsWith("/sessions");
      if (!creating && !(request.method === "POST" && input.endsWith("/messages"))) return through(input, init);
      (creating ? creationKeys : keys).push(request.headers.get("idempotency-key"));
      const { text } = creating ? { text: "POST /sessions" } : ((await request.clone().json()) as { text: string });
      const fate = fates.get(text)?.shift();
      if (fate === "refused") throw new TypeError("fetch failed");
      if (fate === "hang") {
        return new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
        );
      }
      if (typeof fate === "function") await fate(request);
      const response = await through(input, init);
      if (fate === "lost") throw new TypeError("network connection lost");
      return response;
    };
    const client = createAgentClient({ url: server.url, fetch, retry: fast, timeoutMs: 200, ...options });
    if (listen) follow(client);
    clients.push(client);
    await client.ready;
    return { client, fates, keys, creationKeys };
  }

  /** Checks every 5 ms, for up to 5 s, until `done` holds. */
  const until = async (done: () => boolean | Promise<boolean>) => {
    for (let tries = 0; tries < 1000 && !(await done()); tries += 1) await new Promise((r) => setTimeout(r, 5));
  };

  const turnsStarted = async (sessionId: string) =>
    (await server!.runtime.readEvents(sessionId, 0)).filter((event) => event.type === "turn.started");

  it("reports a message the server took as sent, when the stream shows its turn though every attempt failed", async () => {
    const { client, fates } = await flakyClient([{ text: "Hello." }]);
    await client.createSession();
    await waitFor(client, (s) => s.connection === "open");
    fates.set("hi", ["lost", "refused", "refused", "refused"]);
    const result = await client.send("hi");
    expect(result).toMatchObject({ ok: true, status: 202, body: { turnId: expect.any(String) } });
    const state = await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Hello.");
    expect(state.error).toBeUndefined();
    expect(state.outbox).toEqual([]);
    expect(await turnsStarted(state.sessionId!)).toHaveLength(1);
  });

  it("sends the same text again under the same key after a failure, so a message the server took is not taken twice", async () => {
    const { client, fates, keys } = await flakyClient([{ text: "Hello." }, { text: "Again." }]);
    await client.createSession();
    client.close(); // no stream: the client cannot learn that the server took it
    fates.set("hi", ["lost", "refused", "refused", "refused"]);
    expect(await client.send("hi")).toMatchObject({ ok: false, error: { code: "network" } });
    expect(client.getSnapshot().outbox).toMatchObject([{ text: "hi", status: "failed", error: { code: "network" } }]);
    // The server had taken it: a repeat, under the same key.
    expect(await client.send("hi")).toMatchObject({ ok: true, status: 200 });
    expect(new Set(keys).size).toBe(1);
    const sessionId = client.getSnapshot().sessionId!;
    await server!.runtime.idle();
    expect(await turnsStarted(sessionId)).toHaveLength(1);
    // Another text is another message, with a key of its own.
    expect(await client.send("something else")).toMatchObject({ ok: true });
    expect(new Set(keys).size).toBe(2);
    await server!.runtime.idle();
    expect(await turnsStarted(sessionId)).toHaveLength(2);
  });

  it("shows a message in the outbox from the moment it is sent; discarded and sent back next, it is still that message", async () => {
    const { client, fates, keys } = await flakyClient([{ text: "Hello." }, { text: "Again." }]);
    await client.createSession();
    client.close(); // no stream: the client cannot learn that the server took it
    fates.set("hi", ["lost", "refused", "refused", "refused"]);
    const sending = client.send("hi");
    expect(client.getSnapshot()).toMatchObject({ status: "submitting", outbox: [{ text: "hi", status: "sending" }] });
    expect(await sending).toMatchObject({ ok: false });
    const [failed] = client.getSnapshot().outbox;
    expect(failed).toMatchObject({ text: "hi", status: "failed", error: { code: "network" } });
    expect(client.getSnapshot().status).toBe("idle");
    expect(client.discard("k-none")).toBeUndefined();
    expect(client.discard(failed!.key)).toEqual(failed);
    expect(client.getSnapshot().outbox).toEqual([]);
    // Edited back unchanged: the server took it after all, so it answers a repeat and starts nothing.
    expect(await client.send("hi")).toMatchObject({ ok: true });
    expect(new Set(keys).size).toBe(1);
    await server!.runtime.idle();
    expect(await turnsStarted(client.getSnapshot().sessionId!)).toHaveLength(1);
    // Another text is another message; and once another was sent, the same text is a new one too.
    expect(await client.send("hi there")).toMatchObject({ ok: true, status: 202 });
    expect(await client.send("hi")).toMatchObject({ ok: true, status: 202 });
    expect(new Set(keys).size).toBe(3);
    await server!.runtime.idle();
    expect(await turnsStarted(client.getSnapshot().sessionId!)).toHaveLength(3);
  });

  it("sends a failed message again under its own key, and fails the messages waiting behind one that fails", async () => {
    const { client, fates, keys } = await flakyClient([{ text: "Hello." }]);
    const sessionId = await client.createSession();
    fates.set("hello", Array(8).fill("refused"));
    fates.set("later", Array(4).fill("refused"));
    const first = client.send("hello");
    const second = client.send("hello");
    const third = client.send("later");
    expect(await first).toMatchObject({ ok: false, error: { code: "network" } });
    // The two waiting behind it were not sent: they fail with it, in order.
    expect(await second).toMatchObject({ ok: false, error: { code: "network" } });
    expect(await third).toMatchObject({ ok: false, error: { code: "network" } });
    const [one, two, three] = client.getSnapshot().outbox;
    expect([one, two, three].map((message) => message?.status)).toEqual(["failed", "failed", "failed"]);
    expect(new Set(keys)).toEqual(new Set([one!.key]));
    // "Send again" on the second sends that one, under its key.
    fates.delete("hello");
    expect(await client.send("hello", { key: two!.key })).toMatchObject({ ok: true, status: 202 });
    expect(keys.at(-1)).toBe(two!.key);
    await server!.runtime.idle();
    expect(await turnsStarted(sessionId)).toEqual([expect.objectContaining({ idempotencyKey: two!.key })]);
    const shown = await waitFor(client, (state) => state.outbox.length === 2);
    expect(shown.outbox.map((message) => message.key)).toEqual([one!.key, three!.key]);
  });

  it("refuses a key that cannot be an Idempotency-Key header at once, and keeps nothing of the message", async () => {
    const client = await connect([{ text: "Hello." }]);
    expect(() => client.send("привет", { key: "ключ-1" })).toThrow(/"ключ-1" is not 1 to 200 visible ASCII/);
    expect(() => client.send("hi", { key: "x".repeat(201) })).toThrow(TypeError);
    expect(client.getSnapshot().outbox).toEqual([]);
  });

  it("stops resending a message once the stream shows the server took it", async () => {
    const { client, fates, keys } = await flakyClient([{ text: "Hello." }]);
    await client.createSession();
    await waitFor(client, (s) => s.connection === "open");
    fates.set("hi", ["lost", "hang", "hang", "hang"]);
    expect(await client.send("hi")).toMatchObject({ ok: true, status: 202 });
    // The lost attempt and at most the one under way when the turn showed: not every hanging resend.
    expect(keys.length).toBeLessThanOrEqual(2);
    await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Hello." && s.outbox.length === 0);
  });

  it("creates one session when the first message's creation is sent again after every attempt failed", async () => {
    const { client, fates, creationKeys } = await flakyClient([{ text: "Hello." }]);
    fates.set("POST /sessions", ["lost", "lost", "lost", "lost"]);
    expect(await client.send("hi")).toMatchObject({ ok: false, error: { code: "network" } });
    expect(client.getSnapshot()).toMatchObject({ sessionId: undefined, outbox: [{ status: "failed" }] });
    expect(await client.send("hi")).toMatchObject({ ok: true, status: 202 });
    const sessionId = client.getSnapshot().sessionId!;
    // Five creations, one key: the server made one session, the one the client now has.
    expect(creationKeys).toEqual(Array(5).fill(creationKeys[0]));
    expect(await server!.runtime.listSessions()).toEqual([expect.objectContaining({ sessionId })]);
    await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Hello.");
  });

  it("keeps unsent messages for the next page: one not sent comes back failed under its key, one the server took does not", async () => {
    const { items, outboxStorage } = memoryStorage();
    // A lost attempt must reach the server whatever the load: no 200 ms timeout cutting it off first.
    const page = await flakyClient([{ text: "Hello." }, { text: "Again." }], { outboxStorage, timeoutMs: 10_000 });
    const sessionId = await page.client.createSession();
    page.client.close(); // no stream: this page cannot learn that the server took the first
    page.fates.set("taken", ["lost", "refused", "refused", "refused"]);
    page.fates.set("unsent", ["refused", "refused", "refused", "refused"]);
    await page.client.send("taken");
    await page.client.send("unsent");
    const item = `hitl-kit:outbox:${sessionId}`;
    const [takenKey, unsentKey] = [page.keys[0], page.keys.at(-1)];
    const network = { code: "network", message: expect.any(String) };
    expect(JSON.parse(items.get(item)!)).toEqual({
      messages: [
        { key: takenKey, text: "taken", error: network },
        { key: unsentKey, text: "unsent", error: network },
      ],
    });

    // The next page of the session: the history holds the first message, so only the second comes back.
    const next = await flakyClient([], { sessionId, outboxStorage });
    expect(next.client.getSnapshot().outbox).toEqual([
      { key: unsentKey, text: "unsent", status: "failed", error: network },
    ]);
    expect(JSON.parse(items.get(item)!)).toEqual({ messages: [{ key: unsentKey, text: "unsent", error: network }] });
    expect(await next.client.send("unsent")).toMatchObject({ ok: true, status: 202 });
    expect(next.keys).toEqual([unsentKey]);
    await waitFor(next.client, (s) => s.status === "idle" && s.outbox.length === 0 && s.messages.length === 4);
    expect(items.has(item)).toBe(false);
    expect(await turnsStarted(sessionId)).toHaveLength(2);

    // Kept though the server had taken it (the page closed before it learned so): the history clears the item.
    items.set(item, JSON.stringify({ messages: [{ key: takenKey, text: "taken" }] }));
    const later = await flakyClient([], { sessionId, outboxStorage });
    expect(later.client.getSnapshot().outbox).toEqual([]);
    expect(items.has(item)).toBe(false);

    // A deleted session keeps nothing.
    const gone = await flakyClient([], { outboxStorage });
    const goneItem = `hitl-kit:outbox:${await gone.client.createSession()}`;
    items.set(goneItem, JSON.stringify({ messages: [{ key: unsentKey, text: "unsent" }] }));
    expect(await gone.client.deleteSession()).toMatchObject({ ok: true });
    expect(items.has(goneItem)).toBe(false);

    // A storage that holds something unreadable, or refuses to store, loses nothing of the page's own.
    items.set(item, "{not json");
    const refusing = {
      ...outboxStorage,
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    const odd = await flakyClient([], { sessionId, outboxStorage: refusing });
    expect(odd.client.getSnapshot().outbox).toEqual([]);
    odd.fates.set("later", ["refused", "refused", "refused", "refused"]);
    expect(await odd.client.send("later")).toMatchObject({ ok: false, error: { code: "network" } });
    expect(odd.client.getSnapshot().outbox).toMatchObject([{ text: "later", status: "failed" }]);
  });

  it("sends nothing more once disposed (a sign-out): a session's creation still being resent stops, and what the app cleared stays cleared", async () => {
    const { items, outboxStorage } = memoryStorage();
    const page = await flakyClient([{ text: "Hello." }], { outboxStorage, timeoutMs: 10_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    page.fates.set("POST /sessions", [
      async () => {
        await gate;
        throw new TypeError("fetch failed");
      },
    ]);
    const sending = page.client.send("my IBAN is DE89370400440532013000");
    await until(() => page.creationKeys.length === 1);
    expect([...items.keys()]).toEqual(["hitl-kit:outbox:new"]);
    page.client.dispose();
    items.clear(); // the app's clearUnsentMessages, on sign-out
    release();
    expect(await sending).toMatchObject({ ok: false, error: { code: "aborted" } });
    await new Promise((resolve) => setTimeout(resolve, 100)); // past every resend's wait
    expect(page.creationKeys).toHaveLength(1);
    expect(items.size).toBe(0);
    expect(await page.client.send("one more")).toMatchObject({ ok: false });
    expect(page.creationKeys).toHaveLength(1);
    expect(await server!.runtime.listSessions()).toEqual([]);
  });

  it("lets a newer client of the session take its unsent messages over: the older one stops sending them and writing them", async () => {
    const { items, outboxStorage } = memoryStorage();
    const left = await flakyClient([{ text: "Hello." }], { outboxStorage });
    const sessionId = await left.client.createSession();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The message is still on its way when the person leaves the chat and comes back to it.
    const held = (request: Request) =>
      new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        request.signal.addEventListener("abort", () => reject(request.signal.reason));
      });
    left.fates.set("hello", [held, held, held, held]);
    const sending = left.client.send("hello");
    await until(() => items.has(`hitl-kit:outbox:${sessionId}`));

    const back = await flakyClient([], { sessionId, outboxStorage });
    expect(back.client.getSnapshot().outbox).toMatchObject([
      { text: "hello", status: "failed", error: { code: "interrupted" } },
    ]);
    expect(await sending).toMatchObject({ ok: false, error: { code: "aborted" } });
    // The person takes it back to edit it: nothing sends it, nothing brings it back.
    back.client.discard(back.client.getSnapshot().outbox[0]!.key);
    release();
    // What the client left behind does later is its own: it no longer writes the session's item.
    left.fates.set("elsewhere", ["refused", "refused", "refused", "refused"]);
    await left.client.send("elsewhere");
    expect(items.has(`hitl-kit:outbox:${sessionId}`)).toBe(false);
    expect(await turnsStarted(sessionId)).toHaveLength(0);
  });

  it("keeps a new chat's first message, and its creation's key, for the next page: sent from there it makes one session", async () => {
    const { items, outboxStorage } = memoryStorage();
    const page = await flakyClient([{ text: "Hello." }], { outboxStorage });
    // The server creates the session, but its answer never comes back: the page has no session.
    page.fates.set("POST /sessions", ["lost", "refused", "refused", "refused"]);
    expect(await page.client.send("first words")).toMatchObject({ ok: false, error: { code: "network" } });
    const stored = JSON.parse(items.get("hitl-kit:outbox:new")!);
    expect(stored).toEqual({
      messages: [
        { key: expect.any(String), text: "first words", error: { code: "network", message: expect.any(String) } },
      ],
      creationKey: page.creationKeys[0],
    });

    const next = await flakyClient([], { outboxStorage });
    expect(next.client.getSnapshot().outbox).toMatchObject([
      { key: stored.messages[0].key, text: "first words", status: "failed", error: { code: "network" } },
    ]);
    expect(await next.client.send("first words")).toMatchObject({ ok: true, status: 202 });
    // The same creation key: the session the first page's lost answer named, not a second one.
    expect(next.creationKeys).toEqual([page.creationKeys[0]]);
    expect(next.keys).toEqual([stored.messages[0].key]);
    const sessionId = next.client.getSnapshot().sessionId!;
    await waitFor(next.client, (s) => s.status === "idle" && s.outbox.length === 0 && s.messages.length === 2);
    expect(await server!.runtime.listSessions({ owner: "tester" })).toMatchObject([{ sessionId }]);
    expect([...items.keys()]).toEqual([]);
  });

  it("sends messages one at a time: a second one waits while the first is still being resent", async () => {
    const { client, fates } = await flakyClient([{ text: "One." }, { text: "Two." }]);
    await client.createSession();
    await waitFor(client, (s) => s.connection === "open");
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first does not get through, and its resend is held back until the second was sent.
    fates.set("first", ["refused", () => held]);
    const first = client.send("first");
    const second = client.send("second");
    setTimeout(release, 50);
    expect(await first).toMatchObject({ ok: true, status: 202 });
    expect(await second).toMatchObject({ ok: true, status: 202 });
    await waitFor(client, (s) => s.status === "idle" && textOf(s) === "Two.");
    const users = client.getSnapshot().messages.filter((message) => message.role === "user");
    expect(
      users.map((message) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("")),
    ).toEqual(["first", "second"]);
  });

  it("sends no cancel for a message that never got through, so another tab's turn goes on", async () => {
    const { client: offline, fates } = await flakyClient(pickerScript);
    const sessionId = await offline.createSession();
    const other = await connect(pickerScript, sessionId);
    await parkPicker(other); // the other tab's turn, parked on the picker
    fates.set("refund 250", ["refused", "refused", "refused", "refused"]);
    const sending = offline.send("refund 250");
    await until(() => fates.get("refund 250")!.length === 2); // being resent
    const stopping = offline.cancelTurn();
    expect(await sending).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(await stopping).toMatchObject({ ok: true, status: 200 });
    expect(server!.wire.filter((line) => line.endsWith("/cancel"))).toEqual([]);
    expect(await server!.runtime.getSnapshot(sessionId)).toMatchObject({ status: "waiting" });
  });

  it("takes back a message still being resent at once, and stops its turn if the stream shows the server took it", async () => {
    const words = Array.from({ length: 200 }, (_, index) => `w${index}`).join(" ");
    server = await startAgentServer([{ text: words }], { chunkDelayMs: 20 });
    const { client, fates } = await flakyClient([], { listen: false });
    const sessionId = await client.createSession(); // nobody listens yet: no stream shows the turn
    fates.set("talk a lot", ["lost", "hang", "hang", "hang"]);
    const sending = client.send("talk a lot");
    await until(async () => (await turnsStarted(sessionId)).length === 1);
    // The server took it and its answer was lost; the client is resending it when Stop comes.
    expect(await client.cancelTurn()).toMatchObject({ ok: true, status: 200 });
    expect(await sending).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(client.getSnapshot().outbox).toMatchObject([{ status: "failed", error: { code: "aborted" } }]);
    expect(server.wire.filter((line) => line.endsWith("/cancel"))).toEqual([]);
    // The stream opens and shows the message's turn: the client stops it, and the message shows as sent.
    const running: boolean[] = [];
    const stop = client.subscribe((s) => {
      if (s.session.status === "running") running.push(s.stopping);
    });
    const state = await waitFor(client, (s) => s.status === "idle" && s.outbox.length === 0 && s.messages.length > 0);
    stop();
    // While its turn ran, the Stop showed as under way; it is over once the turn is.
    expect(running.length).toBeGreaterThan(0);
    expect(running.every(Boolean)).toBe(true);
    expect(state.stopping).toBe(false);
    expect(state.messages[0]).toMatchObject({ role: "user" });
    await server.runtime.idle();
    const events = await server.runtime.readEvents(sessionId, 0);
    expect(events.filter((event) => event.type === "turn.started")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(server.wire.filter((line) => line.endsWith("/cancel"))).toHaveLength(1);
  });

  it("takes back a message Stop catches before it went out: nothing is sent and nothing runs", async () => {
    const words = Array.from({ length: 50 }, (_, index) => `w${index}`).join(" ");
    server = await startAgentServer([{ text: words }], { chunkDelayMs: 5 });
    const { client, keys } = await flakyClient([]);
    const sessionId = await client.createSession();
    const sending = client.send("hi");
    expect(await client.cancelTurn()).toMatchObject({ ok: true, status: 200 });
    expect(await sending).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(client.getSnapshot()).toMatchObject({ status: "idle", outbox: [{ text: "hi", status: "failed" }] });
    expect(keys).toEqual([]);
    expect(await turnsStarted(sessionId)).toEqual([]);
    // Sent again, it runs to the end: Stop does not follow it.
    expect(await client.send("hi")).toMatchObject({ ok: true, status: 202 });
    await waitFor(client, (s) => s.status === "idle" && textOf(s) === words);
    const events = await server!.runtime.readEvents(sessionId, 0);
    expect(events.at(-1)).toMatchObject({ type: "turn.completed" });
  });
});
