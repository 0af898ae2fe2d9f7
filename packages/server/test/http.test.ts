import { join } from "node:path";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentRuntime, scriptedModel } from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { asReceived, browser, readSse, startServer, tempDir } from "./harness.js";

let server: ReturnType<typeof startServer>;
afterEach(() => server?.close());

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };

async function parkedSession(options = {}) {
  server = startServer(scriptedModel([{ text: "Pick.", toolCalls: [pick] }, { text: "Done." }]), options);
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  await server.runtime.idle();
  return { id, request: (await server.snapshot(id)).pending[0]! };
}

describe("bad input", () => {
  it.each([
    ["malformed JSON", "POST", "/messages", "{text:", {}, 400, "bad_request"],
    ["a body that misses a field", "POST", "/messages", { txt: "hi" }, {}, 400, "bad_request"],
    ["an empty message", "POST", "/messages", { text: "   " }, {}, 400, "bad_request"],
    ["responses that are not a list", "POST", "/responses", { responses: "yes" }, {}, 400, "bad_request"],
    [
      "an unknown action",
      "POST",
      "/responses",
      { responses: [{ requestId: "r", action: "maybe" }] },
      {},
      400,
      "bad_request",
    ],
    [
      "a body that is not JSON",
      "POST",
      "/messages",
      "hi",
      { "content-type": "text/plain" },
      415,
      "unsupported_media_type",
    ],
    ["a body over 1 MiB", "POST", "/messages", { text: "x".repeat(1024 * 1024) }, {}, 413, "payload_too_large"],
    ["a wrong method", "PUT", "/messages", { text: "hi" }, {}, 405, "method_not_allowed"],
    ["a cancel whose turnId is not a string", "POST", "/cancel", { turnId: 5 }, {}, 400, "bad_request"],
    ["an unknown route", "GET", "/nothing", undefined, {}, 404, "not_found"],
  ] as const)(
    "answers %s with %i and its code, and changes nothing",
    async (_name, method, path, body, headers, status, code) => {
      const { id } = await parkedSession();
      const before = await server.events(id);
      const response = await server.call(method, `/sessions/${id}${path}`, body, headers);
      expect(response.status).toBe(status);
      expect(response.body).toEqual({
        error: {
          code,
          message: expect.any(String),
          ...(response.body.error.details ? { details: expect.anything() } : {}),
        },
      });
      expect(await server.events(id)).toEqual(before);
      expect((await server.snapshot(id)).pending).toHaveLength(1);
    },
  );

  it("does not echo a malformed body back: what was sent may be personal, and proxies keep error bodies", async () => {
    const { id } = await parkedSession();
    const body = '{"responses":[{"value":{"iban": DE89370400440532013000}}]}';
    const response = await server.call("POST", `/sessions/${id}/responses`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe("The body is not valid JSON: Unexpected token 'D'.");
  });

  it("lists each malformed field in the details", async () => {
    const { id } = await parkedSession();
    const response = await server.call("POST", `/sessions/${id}/responses`, { responses: [{ action: "accept" }] });
    expect(response.body.error.details).toEqual([{ path: ["responses", 0, "requestId"], message: expect.any(String) }]);
  });

  it("refuses answering one request twice in one body", async () => {
    const { id, request } = await parkedSession();
    const answer = { requestId: request.requestId, action: "cancel" };
    const response = await server.call("POST", `/sessions/${id}/responses`, { responses: [answer, answer] });
    expect(response.status).toBe(400);
    expect((await server.snapshot(id)).pending).toHaveLength(1);
  });

  it("gives sessions unguessable ids of at least 128 random bits", async () => {
    server = startServer(scriptedModel([]));
    const ids = await Promise.all(Array.from({ length: 20 }, () => server.session()));
    expect(new Set(ids).size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^ses_[A-Za-z0-9_-]{22}$/);
  });
});

describe("concurrent answers", () => {
  it("settles one request exactly once under 100 concurrent identical answers", async () => {
    const { id, request } = await parkedSession();
    const answer = { requestId: request.requestId, action: "accept", value: { templateId: "a" } };
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => server.call("POST", `/sessions/${id}/responses`, { responses: [answer] })),
    );
    expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(99);
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.filter((event) => event.type === "input.resolved")).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool.result")).toHaveLength(1);
  });

  it("lets exactly one of 100 different concurrent answers win; the rest get 409", async () => {
    const { id, request } = await parkedSession();
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        server.call("POST", `/sessions/${id}/responses`, {
          responses: [{ requestId: request.requestId, action: "accept", value: { templateId: `t${index}` } }],
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(99);
    await server.runtime.idle();
    expect((await server.events(id)).filter((event) => event.type === "tool.result")).toHaveLength(1);
  });
});

describe("a cancel that names its turn", () => {
  it("stops that turn while it is current, and changes nothing once a later one has started", async () => {
    server = startServer(
      scriptedModel([
        { text: "Pick.", toolCalls: [pick] },
        { text: "Again.", toolCalls: [pick] },
      ]),
    );
    const id = await server.session();
    const { body: started } = await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const first = started.turnId as string;
    const { body } = await server.call("POST", `/sessions/${id}/messages`, { text: "another" });
    await server.runtime.idle();
    const before = await server.events(id);
    expect(await server.call("POST", `/sessions/${id}/cancel`, { turnId: first })).toMatchObject({ status: 202 });
    expect(await server.events(id)).toEqual(before);
    expect(await server.call("POST", `/sessions/${id}/cancel`, { turnId: body.turnId })).toMatchObject({
      status: 202,
    });
    expect((await server.events(id)).at(-1)).toMatchObject({ type: "turn.cancelled", turnId: body.turnId });
  });
});

describe("messages with an Idempotency-Key", () => {
  const message = (id: string, text: string, key: string) =>
    server.call("POST", `/sessions/${id}/messages`, { text }, { "idempotency-key": key });

  it("starts one turn for a message sent 20 times at once under one key; the repeats get 200 and its turn", async () => {
    server = startServer(scriptedModel([{ text: "Pick.", toolCalls: [pick] }, { text: "Done." }]));
    const id = await server.session();
    const responses = await Promise.all(Array.from({ length: 20 }, () => message(id, "go", "key-1")));
    expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(19);
    const turnIds = new Set(responses.map((response) => response.body.turnId));
    expect(turnIds.size).toBe(1);
    await server.runtime.idle();
    // Parked now: a repeat is still a repeat, not a new message that would cancel the parked turn.
    expect(await message(id, "go", "key-1")).toMatchObject({ status: 200, body: { turnId: [...turnIds][0] } });
    const events = await server.events(id);
    // The turn names the key, so a sender whose answer was lost still learns its message was taken.
    expect(events.filter((event) => event.type === "turn.started")).toEqual([
      expect.objectContaining({ cause: "message", idempotencyKey: "key-1" }),
    ]);
    const parked = await server.snapshot(id);
    expect(parked.status).toBe("waiting");
    // The history knows the message by its key, so a page that could not learn it was taken finds it there.
    expect(parked.messages[0]).toMatchObject({ role: "user", idempotencyKey: "key-1" });
    expect(parked.messages[1]).not.toHaveProperty("idempotencyKey");
    // A new key is a new message.
    expect((await message(id, "go", "key-2")).status).toBe(202);
    await server.runtime.idle();
    expect((await server.events(id)).filter((event) => event.type === "turn.started")).toHaveLength(2);
  });

  it("recognizes a late resend after later messages overtook it, however many", async () => {
    server = startServer(scriptedModel(Array.from({ length: 30 }, () => ({ text: "Hi." }))));
    const id = await server.session();
    const turns: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const response = await message(id, `message ${index}`, `key-${index}`);
      expect(response.status).toBe(202);
      turns.push(response.body.turnId);
      await server.runtime.idle();
    }
    // A page closed while "message 0" was on its way, and sends it again 19 messages later.
    expect(await message(id, "message 0", "key-0")).toMatchObject({ status: 200, body: { turnId: turns[0] } });
    expect(await message(id, "message 12", "key-12")).toMatchObject({ status: 200, body: { turnId: turns[12] } });
    const started = (await server.events(id)).filter((event) => event.type === "turn.started");
    expect(started).toHaveLength(20);
  });

  it("refuses a key used for another text, or one that is not 1 to 200 visible characters, and changes nothing", async () => {
    const { id } = await parkedSession();
    expect((await message(id, "go again", "key-1")).status).toBe(202);
    await server.runtime.idle();
    const before = await server.events(id);
    for (const [text, key] of [
      ["something else", "key-1"],
      ["go", "has space"],
      ["go", "x".repeat(201)],
    ] as const) {
      const response = await message(id, text, key);
      expect(response).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
      expect(response.body.error.message).toContain("Idempotency-Key");
    }
    expect(await server.events(id)).toEqual(before);
  });

  it("recognizes a repeat after a restart, from the session's stored record", async () => {
    const dir = tempDir();
    const file = join(dir.path, "hitl.sqlite");
    const open = () => {
      const store = sqliteStore(file);
      const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hi." }]), store, tools: [] });
      return { store, runtime, close: () => runtime.close().then(() => store.close()) };
    };
    try {
      const first = open();
      const { sessionId } = await first.runtime.createSession();
      const sent = await first.runtime.sendMessage(sessionId, "hello", { key: "k" });
      expect(sent.repeated).toBe(false);
      await first.runtime.idle();
      await first.close();
      const second = open();
      expect(await second.runtime.sendMessage(sessionId, "hello", { key: "k" })).toEqual({
        turnId: sent.turnId,
        repeated: true,
      });
      expect(
        (await second.runtime.readEvents(sessionId, 0)).filter((event) => event.type === "turn.started"),
      ).toHaveLength(1);
      await second.close();
    } finally {
      dir.cleanup();
    }
  });
});

describe("session creation with an Idempotency-Key", () => {
  it("makes one session for a creation sent 20 times at once under one key, per person; the repeats get 200", async () => {
    server = startServer(scriptedModel([]));
    await server.session(); // the browser's identity, from its first creation
    const create = (key: string, as = server.call) => as("POST", "/sessions", {}, { "idempotency-key": key });
    const responses = await Promise.all(Array.from({ length: 20 }, () => create("creation-key-1")));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(19);
    const ids = new Set(responses.map((response) => response.body.sessionId));
    expect(ids.size).toBe(1);
    const [id] = ids;
    expect(id).toMatch(/^ses_[A-Za-z0-9_-]{22}$/);
    expect((await server.call("GET", "/sessions")).body.sessions).toHaveLength(2);
    expect((await server.events(id!)).map((event) => event.type)).toEqual(["session.created"]);
    // Another person's creation under the same key is their own session.
    const other = browser(server.handler);
    await other.call("POST", "/sessions", {});
    const theirs = await create("creation-key-1", other.call);
    expect(theirs.status).toBe(201);
    expect(theirs.body.sessionId).not.toBe(id);
    expect((await server.call("GET", `/sessions/${theirs.body.sessionId}`)).status).toBe(404);
  });

  it("makes one session when creations under one key race into the store together", async () => {
    server = startServer(scriptedModel([]));
    const created = await Promise.all(
      Array.from({ length: 20 }, () => server.runtime.createSession({ owner: "ada", key: "creation-key-1" })),
    );
    expect(created.filter((session) => !session.repeated)).toHaveLength(1);
    expect(new Set(created.map((session) => session.sessionId)).size).toBe(1);
    expect(await server.runtime.listSessions({ owner: "ada" })).toHaveLength(1);
  });

  it("answers a repeat even at the owner's session cap", async () => {
    server = startServer(scriptedModel([]), { maxSessionsPerOwner: 2 });
    const create = (key: string) => server.call("POST", "/sessions", {}, { "idempotency-key": key });
    expect((await create("creation-key-1")).status).toBe(201);
    const second = await create("creation-key-2");
    expect(second.status).toBe(201);
    expect(await create("creation-key-2")).toMatchObject({ status: 200, body: { sessionId: second.body.sessionId } });
    expect(await create("creation-key-3")).toMatchObject({ status: 409, body: { error: { code: "session_limit" } } });
  });

  it("refuses a malformed key and creates nothing", async () => {
    server = startServer(scriptedModel([]));
    await server.session();
    const response = await server.call("POST", "/sessions", {}, { "idempotency-key": "has space" });
    expect(response).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
    expect((await server.call("GET", "/sessions")).body.sessions).toHaveLength(1);
  });
});

describe("the event stream", () => {
  const stream = (id: string, init: { after?: number; lastEventId?: number } = {}) =>
    server.send(`/sessions/${id}/events${init.after === undefined ? "" : `?after=${init.after}`}`, {
      headers: init.lastEventId === undefined ? {} : { "last-event-id": String(init.lastEventId) },
    });
  const seqs = (events: ProtocolEvent[]) => events.map((event) => event.seq);

  it("replays exactly the events after Last-Event-ID or ?after=, in order", async () => {
    const { id } = await parkedSession();
    const all = await server.events(id);
    const last = all.at(-1)!.seq;
    const done = (events: ProtocolEvent[]) => events.at(-1)?.seq === last;
    expect(seqs(await readSse(await stream(id), id, done))).toEqual(seqs(all));
    expect(seqs(await readSse(await stream(id, { lastEventId: 3 }), id, done))).toEqual(seqs(all).slice(3));
    expect(seqs(await readSse(await stream(id, { after: 5 }), id, done))).toEqual(seqs(all).slice(5));
    expect((await stream(id, { lastEventId: -1 })).status).toBe(400);
  });

  it("tails live events after the replay, the same to every client", async () => {
    const { id, request } = await parkedSession();
    const from = (await server.events(id)).at(-1)!.seq;
    const completed = (events: ProtocolEvent[]) => events.some((event) => event.type === "turn.completed");
    const [a, b] = [stream(id, { lastEventId: from }), stream(id, { lastEventId: from - 2 })];
    const readers = [readSse(await a, id, completed), readSse(await b, id, completed)];
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request.requestId, action: "accept", value: { templateId: "b" } }],
    });
    const [first, second] = await Promise.all(readers);
    const all = await server.events(id);
    expect(seqs(first!)).toEqual(seqs(all).filter((seq) => seq > from));
    expect(seqs(second!)).toEqual(seqs(all).filter((seq) => seq > from - 2));
    expect(first).toEqual(all.filter((event) => event.seq > from).map(asReceived));
  });

  it("serves a reader that falls behind from the store, not from memory: every event once, in order", async () => {
    const words = Array.from({ length: 2000 }, (_, index) => `w${index}`).join(" ");
    server = startServer(scriptedModel([{ text: words }]));
    const id = await server.session();
    const reads: number[] = [];
    const readEvents = server.runtime.readEvents.bind(server.runtime);
    server.runtime.readEvents = (sessionId, after, limit) => {
      reads.push(after);
      return readEvents(sessionId, after, limit);
    };
    const response = await stream(id); // opened, then not read while the turn streams
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();

    const all = await server.events(id);
    const received = await readSse(response, id, (events) => events.at(-1)?.type === "turn.completed");
    expect(seqs(received)).toEqual(seqs(all));
    // Beyond the first replay, the stream went back to the store for what it had not buffered.
    expect(reads.filter((after) => after > 0).length).toBeGreaterThan(0);
  });

  it("streams where the streams come without ByteLengthQueuingStrategy, as in Jest's jsdom environment", async () => {
    const { id } = await parkedSession();
    vi.stubGlobal("ByteLengthQueuingStrategy", undefined);
    try {
      const all = await server.events(id);
      const received = await readSse(await stream(id), id, (events) => events.at(-1)?.seq === all.at(-1)!.seq);
      expect(seqs(received)).toEqual(seqs(all));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("sends a heartbeat comment while idle", async () => {
    server = startServer(scriptedModel([]), { http: { heartbeatMs: 20 } });
    const id = await server.session();
    const response = await stream(id);
    const reader = response
      .body!.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
      .getReader();
    let text = "";
    while (!text.includes(": ping")) text += (await reader.read()).value;
    await reader.cancel();
    expect(text).toMatch(/^retry: 1000\n\n/);
  });
});
