import { type InputRequest, ProtocolError, type ProtocolEvent } from "@hitl-kit/protocol";
import {
  type AgentRuntime,
  createAgentRuntime,
  createFetchHandler,
  type FetchHandlerOptions,
  memoryStore,
  type Script,
  type ScriptedModelOptions,
  scriptedModel,
} from "@hitl-kit/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ApiClient, type ApiClientOptions, ApiError, createApiClient } from "../src/index.js";
import { pickCall, pickTemplate } from "./helpers.js";

const base = "http://hitl.test/api/agent";
let runtimes: AgentRuntime[] = [];

afterEach(async () => {
  for (const runtime of runtimes) await runtime.close();
  runtimes = [];
});

interface Sent {
  method: string;
  path: string;
  headers: Headers;
  credentials: RequestCredentials | undefined;
}

/** The real runtime and fetch handler, called in process through the client's `fetch`. */
function setup(
  script: Script,
  options: {
    model?: ScriptedModelOptions;
    http?: FetchHandlerOptions;
    client?: Omit<ApiClientOptions, "url" | "fetch">;
    maxSessionsPerOwner?: number;
  } = {},
) {
  const runtime = createAgentRuntime({
    model: scriptedModel(script, options.model),
    tools: [pickTemplate],
    store: memoryStore(),
    logger: { warn: () => {}, error: () => {} },
    ...(options.maxSessionsPerOwner ? { maxSessionsPerOwner: options.maxSessionsPerOwner } : {}),
  });
  runtimes.push(runtime);
  const handler = createFetchHandler(runtime, { identify: () => "tester", ...options.http });
  const sent: Sent[] = [];
  const api = createApiClient({
    url: `${base}/`,
    ...options.client,
    fetch: async (url, init) => {
      const request = new Request(url, init);
      sent.push({
        method: request.method,
        path: new URL(url).pathname + new URL(url).search,
        headers: request.headers,
        credentials: init?.credentials,
      });
      return handler(request);
    },
  });
  return { runtime, api, sent };
}

/** A runtime with the scripted replies and no tools, and its fetch handler for one caller. */
function replying(script: Script) {
  const runtime = createAgentRuntime({ model: scriptedModel(script), tools: [], store: memoryStore() });
  runtimes.push(runtime);
  return { runtime, handler: createFetchHandler(runtime, { identify: () => "tester", heartbeatMs: 60_000 }) };
}

const pickerScript: Script = [{ text: "Pick a template.", toolCalls: [pickCall] }, { text: "Nice choice." }];

/** Creates a session, sends a message and waits until the turn parks on the picker. */
async function parked(api: ApiClient, runtime: AgentRuntime) {
  const { sessionId } = await api.createSession();
  await api.sendMessage(sessionId, "make me a poster");
  await runtime.idle();
  const snapshot = await api.getSnapshot(sessionId);
  return { sessionId, request: snapshot.pending[0] as InputRequest };
}

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** Reads `count` events, then stops the iteration. */
/**
 * Sends each text as a message in a new session, one turn after another, then reads the
 * session's event stream through `api` and checks that every seq came once, in order.
 * Answers the last seq.
 */
async function readsEveryEvent(api: ApiClient, runtime: AgentRuntime, texts: string[]): Promise<number> {
  const { sessionId } = await api.createSession();
  for (const text of texts) {
    await api.sendMessage(sessionId, text);
    await runtime.idle();
  }
  const { lastSeq } = await api.getSnapshot(sessionId);
  const events = await take(api.events(sessionId), lastSeq);
  expect(events.map((event) => event.seq)).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
  return lastSeq;
}

async function take(events: AsyncIterable<ProtocolEvent>, count: number): Promise<ProtocolEvent[]> {
  const taken: ProtocolEvent[] = [];
  if (count === 0) return taken;
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

describe("createApiClient against the real fetch handler", () => {
  it("refuses to start without a url, naming the fix", () => {
    expect(() => createApiClient({ url: "" })).toThrow(/needs the url of the hitl-kit handler/);
  });

  it("creates, lists, reads, messages, answers and deletes a session", async () => {
    const { api, runtime, sent } = setup(pickerScript);
    const { sessionId, request } = await parked(api, runtime);
    expect(sessionId).toMatch(/^ses_/);
    expect(request).toMatchObject({ toolName: "pick_template", kind: "input" });

    const list = await api.listSessions();
    expect(list.sessions).toEqual([
      expect.objectContaining({ sessionId, status: "waiting", title: "make me a poster", lastSeq: expect.any(Number) }),
    ]);
    expect(list.nextCursor).toBeUndefined();

    const answered = await api.respond(sessionId, [
      { requestId: request.requestId, action: "accept", value: { templateId: "calm" } },
    ]);
    expect(answered).toEqual({
      status: 202,
      resolutions: [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }],
    });
    // The same response again is a safe retry: 200 with the first resolution.
    const repeated = await api.respond(sessionId, [
      { requestId: request.requestId, action: "accept", value: { templateId: "calm" } },
    ]);
    expect(repeated).toEqual({ ...answered, status: 200 });
    await runtime.idle();
    const snapshot = await api.getSnapshot(sessionId);
    expect(snapshot).toMatchObject({ sessionId, status: "idle", pending: [] });
    expect(snapshot.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);

    await api.deleteSession(sessionId);
    expect((await api.listSessions()).sessions).toEqual([]);
    expect(sent.map(({ method, path }) => `${method} ${path}`)).toEqual([
      "POST /api/agent/sessions",
      `POST /api/agent/sessions/${sessionId}/messages`,
      `GET /api/agent/sessions/${sessionId}`,
      "GET /api/agent/sessions",
      `POST /api/agent/sessions/${sessionId}/responses`,
      `POST /api/agent/sessions/${sessionId}/responses`,
      `GET /api/agent/sessions/${sessionId}`,
      `DELETE /api/agent/sessions/${sessionId}`,
      "GET /api/agent/sessions",
    ]);
  });

  it("sends every POST as JSON with the client's and the call's headers, and same-origin credentials", async () => {
    const { api, sent } = setup([], {
      client: { headers: () => ({ authorization: "Bearer one", "x-app": "chat" }) },
    });
    await api.createSession({ headers: { authorization: "Bearer two" } });
    const [create] = sent;
    expect(create!.headers.get("content-type")).toBe("application/json");
    expect(create!.headers.get("authorization")).toBe("Bearer two");
    expect(create!.headers.get("x-app")).toBe("chat");
    expect(create!.credentials).toBe("same-origin");
  });

  it("says there is no fetch at once, where there is none, instead of retrying it as the network", async () => {
    const saved = globalThis.fetch;
    // @ts-expect-error: an environment without fetch, as Jest's jsdom one
    delete globalThis.fetch;
    try {
      await expect(createApiClient({ url: "http://127.0.0.1:1/api" }).createSession()).rejects.toThrow(
        "This environment has no fetch (Jest's jsdom environment has none): pass one to the client as { fetch }",
      );
    } finally {
      globalThis.fetch = saved;
    }
  });

  it("names a header whose value HTTP cannot carry, and sends nothing", async () => {
    const { api, sent } = setup([], { client: { headers: { "x-user-name": "山田太郎" } } });
    await expect(api.createSession()).rejects.toThrow(
      'The header "x-user-name" has a value HTTP cannot carry ("山田太郎"): header values are Latin-1 text',
    );
    const latin = setup([], { client: { headers: [["x-user-name", "Zoë"]] } });
    await latin.api.createSession();
    expect(latin.sent[0]!.headers.get("x-user-name")).toBe("Zoë");
    expect(sent).toEqual([]);
  });

  it("pages the session list with limit and cursor", async () => {
    const { api } = setup([]);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await api.createSession()).sessionId);
    const first = await api.listSessions({ limit: 2 });
    expect(first.sessions).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await api.listSessions({ limit: 2, cursor: first.nextCursor! });
    expect(second.sessions).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.sessions, ...second.sessions].map((session) => session.sessionId).sort()).toEqual(ids.sort());
  });

  it("pages a snapshot's history with before", async () => {
    const script: Script = Array.from({ length: 3 }, (_, index) => ({ text: `Reply ${index}.` }));
    const { api, runtime } = setup(script);
    const { sessionId } = await api.createSession();
    for (let index = 0; index < 3; index++) {
      await api.sendMessage(sessionId, `Message ${index}`);
      await runtime.idle();
    }
    const newest = await api.getSnapshot(sessionId, { limit: 4 });
    expect(newest.messages).toHaveLength(4);
    expect(newest.before).toEqual(expect.any(String));
    const earlier = await api.getSnapshot(sessionId, { before: newest.before!, limit: 4 });
    expect(earlier.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(earlier.before).toBeUndefined();
  });

  it("cancels one request, and stops a running turn", async () => {
    const { api, runtime } = setup([...pickerScript, { text: "word ".repeat(200) }], {
      model: { chunkDelayMs: 2 },
    });
    const { sessionId, request } = await parked(api, runtime);
    const cancelled = await api.cancelRequest(sessionId, request.requestId);
    expect(cancelled.resolutions).toEqual([{ requestId: request.requestId, action: "cancel" }]);
    await runtime.idle();

    await api.sendMessage(sessionId, "talk for a while");
    expect((await api.getSnapshot(sessionId)).status).toBe("running");
    await api.cancelTurn(sessionId);
    await runtime.idle();
    const events = await take(api.events(sessionId), (await api.getSnapshot(sessionId)).lastSeq);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
  });

  describe("errors", () => {
    it("throws not_found (404) for an unknown session, on every route", async () => {
      const { api } = setup([]);
      const calls = [
        api.getSnapshot("ses_missing"),
        api.sendMessage("ses_missing", "hi"),
        api.respond("ses_missing", [{ requestId: "req_x", action: "cancel" }]),
        api.cancelRequest("ses_missing", "req_x"),
        api.cancelTurn("ses_missing"),
        api.deleteSession("ses_missing"),
        take(api.events("ses_missing"), 1),
      ];
      for (const call of calls) {
        const error = await rejection(call);
        expect(error).toBeInstanceOf(ProtocolError);
        expect({ code: error.code, status: error.status }).toEqual({ code: "not_found", status: 404 });
        expect(error.message).toContain("ses_missing");
      }
    });

    it("throws already_resolved (409) with the first resolution for a different answer", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId, request } = await parked(api, runtime);
      await api.respond(sessionId, [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }]);
      const error = await rejection(api.cancelRequest(sessionId, request.requestId));
      expect(error).toMatchObject({ code: "already_resolved", status: 409 });
      expect(error.details).toMatchObject({ resolution: { action: "accept", value: { templateId: "calm" } } });
    });

    it("throws turn_running (409) for a message while a turn runs", async () => {
      const { api } = setup([{ text: "word ".repeat(200) }], { model: { chunkDelayMs: 2 } });
      const { sessionId } = await api.createSession();
      await api.sendMessage(sessionId, "go");
      const error = await rejection(api.sendMessage(sessionId, "again"));
      expect(error).toMatchObject({ code: "turn_running", status: 409 });
      await api.cancelTurn(sessionId);
    });

    it("throws session_limit (409) past the owner's cap", async () => {
      const { api } = setup([], { maxSessionsPerOwner: 1 });
      await api.createSession();
      const error = await rejection(api.createSession());
      expect(error).toMatchObject({ code: "session_limit", status: 409, details: { limit: 1 } });
    });

    it("throws invalid_answer (422) with each issue, and the request stays open", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId, request } = await parked(api, runtime);
      const error = await rejection(
        api.respond(sessionId, [{ requestId: request.requestId, action: "accept", value: { templateId: "retro" } }]),
      );
      expect(error).toMatchObject({ code: "invalid_answer", status: 422 });
      expect(error.details).toEqual([expect.objectContaining({ message: "The retro template is retired." })]);
      expect((await api.getSnapshot(sessionId)).pending.map((open) => open.requestId)).toEqual([request.requestId]);
    });

    it("throws bad_request (400) for a query the server refuses", async () => {
      const { api } = setup([]);
      const error = await rejection(api.listSessions({ limit: 1000 }));
      expect(error).toMatchObject({ code: "bad_request", status: 400 });
      expect(error.message).toContain("?limit=");
    });

    it("throws the host's forbidden (403) and unauthorized (401)", async () => {
      const refused = setup([], { http: { authorize: () => false } });
      expect(await rejection(refused.api.createSession())).toMatchObject({ code: "forbidden", status: 403 });
      const anonymous = setup([], { http: { identify: () => undefined } });
      expect(await rejection(anonymous.api.listSessions())).toMatchObject({ code: "unauthorized", status: 401 });
    });

    it("throws network (status 0) when no answer comes back", async () => {
      const api = createApiClient({
        url: base,
        retry: false,
        fetch: () => Promise.reject(new TypeError("fetch failed")),
      });
      const error = await rejection(api.createSession());
      expect(error).toMatchObject({ code: "network", status: 0 });
      expect(error.message).toContain("fetch failed");
      expect(error.cause).toBeInstanceOf(TypeError);
    });

    it("throws aborted (status 0) when the caller aborts, before or during the request", async () => {
      const { api, sent } = setup([]);
      const before = new AbortController();
      before.abort();
      expect(await rejection(api.listSessions({ signal: before.signal }))).toMatchObject({
        code: "aborted",
        status: 0,
      });
      expect(sent).toEqual([]);
      // As the platform's fetch does: a request in flight rejects when its signal aborts.
      let sending!: () => void;
      const inFlight = new Promise<void>((resolve) => {
        sending = resolve;
      });
      const hanging = createApiClient({
        url: base,
        fetch: (_url, init) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
            sending();
          }),
      });
      const during = new AbortController();
      const pending = rejection(hanging.createSession({ signal: during.signal }));
      await inFlight;
      during.abort();
      expect(await pending).toMatchObject({ code: "aborted", status: 0 });
    });

    it("throws bad_response for answers that are not the protocol's, keeping their status, and unavailable for a proxy's 502 or 504", async () => {
      const answering = (response: () => Response) =>
        createApiClient({ url: base, fetch: async () => response(), retry: false });
      // A bare 409 could be any of three conflicts: the client does not guess.
      const bareConflict = answering(() => new Response(null, { status: 409 }));
      expect(await rejection(bareConflict.sendMessage("ses_1", "hi"))).toMatchObject({
        code: "bad_response",
        status: 409,
      });
      // A status with one code gets it, even from a proxy; a proxy's 502 or 504 page is the server unreachable.
      for (const status of [502, 503, 504]) {
        const proxyPage = answering(() => new Response("<h1>Bad gateway</h1>", { status }));
        expect(await rejection(proxyPage.listSessions())).toMatchObject({ code: "unavailable", status });
      }
      const empty502 = answering(() => new Response(null, { status: 502, headers: { "content-type": "text/plain" } }));
      expect(await rejection(empty502.listSessions())).toMatchObject({ code: "unavailable", status: 502 });
      const bare401 = answering(() => new Response("Log in", { status: 401 }));
      expect(await rejection(bare401.listSessions())).toMatchObject({ code: "unauthorized", status: 401 });
      const notJson = answering(() => new Response("<html>", { status: 200 }));
      expect(await rejection(notJson.listSessions())).toMatchObject({ code: "bad_response", status: 200 });
      const notASnapshot = answering(() => Response.json({ sessionId: "ses_1" }));
      const error = await rejection(notASnapshot.getSnapshot("ses_1"));
      expect(error).toMatchObject({ code: "bad_response", status: 200 });
      expect(error.message).toContain("snapshot");
    });

    it("keeps a code this version does not know", async () => {
      const api = createApiClient({
        url: base,
        fetch: async () =>
          Response.json({ error: { code: "quota_exceeded", message: "Out of credit." } }, { status: 402 }),
      });
      expect(await rejection(api.createSession())).toMatchObject({
        code: "quota_exceeded",
        status: 402,
        message: "Out of credit.",
      });
    });
  });

  describe("resending after a transient failure", () => {
    const fast = { initialDelayMs: 1, maxDelayMs: 5, maxRetries: 3 };
    type Failure = "refused" | "lost" | Response;

    /**
     * The real handler behind a fetch that fails the next requests as `failing` says, in
     * turn: `refused` before the server sees it, `lost` after the server took it (its
     * answer lost on the way back), or a proxy's own answer.
     */
    function flaky(retry: ApiClientOptions["retry"] = fast) {
      const runtime = createAgentRuntime({
        model: scriptedModel(pickerScript),
        tools: [pickTemplate],
        store: memoryStore(),
        logger: { warn: () => {}, error: () => {} },
      });
      runtimes.push(runtime);
      const handler = createFetchHandler(runtime, { identify: () => "tester" });
      const failing: Failure[] = [];
      const sent: { method: string; path: string; key: string | null; body: string }[] = [];
      const api = createApiClient({
        url: base,
        retry,
        fetch: async (url, init) => {
          const request = new Request(url, init);
          const { method } = request;
          const body = method === "GET" || method === "DELETE" ? "" : await request.clone().text();
          sent.push({ method, path: new URL(url).pathname, key: request.headers.get("idempotency-key"), body });
          const failure = failing.shift();
          if (failure === "refused") throw new TypeError("fetch failed");
          if (failure instanceof Response) return failure;
          const response = await handler(request);
          if (failure === "lost") throw new TypeError("network connection lost");
          return response;
        },
      });
      return { runtime, api, sent, failing };
    }

    const busy = () => new Response("<h1>Service unavailable</h1>", { status: 503 });

    it("resends a message whose answer was lost, with the same key and body, and the server starts one turn", async () => {
      const { runtime, api, sent, failing } = flaky();
      const { sessionId } = await api.createSession();
      sent.length = 0;
      failing.push("lost", "refused", busy());
      const { turnId } = await api.sendMessage(sessionId, "make me a poster");
      await runtime.idle();
      expect(sent).toHaveLength(4);
      const [first] = sent;
      expect(first!.key).toMatch(/^[\w-]{22}$/);
      for (const attempt of sent) expect(attempt).toEqual(first);
      const events = await runtime.readEvents(sessionId, 0);
      const started = events.filter((event) => event.type === "turn.started");
      expect(started).toEqual([expect.objectContaining({ turnId, cause: "message" })]);
      expect(events.filter((event) => event.type === "message.started" && event.role === "user")).toHaveLength(1);
      // A message of its own gets a key of its own.
      await api.cancelTurn(sessionId);
      await api.sendMessage(sessionId, "make me a poster");
      expect(sent.at(-1)!.key).not.toBe(first!.key);
    });

    it("resends answers, reads and cancels through an outage, and the answer settles once", async () => {
      const { runtime, api, sent, failing } = flaky();
      const { sessionId, request } = await parked(api, runtime);
      failing.push(busy(), "lost");
      const reply = await api.respond(sessionId, [
        { requestId: request.requestId, action: "accept", value: { templateId: "calm" } },
      ]);
      // The lost attempt settled it; the resend is a repeat, answered 200 with the same resolution.
      expect(reply).toEqual({
        status: 200,
        resolutions: [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }],
      });
      await runtime.idle();
      const results = (await runtime.readEvents(sessionId, 0)).filter((event) => event.type === "tool.result");
      expect(results).toHaveLength(1);
      failing.push(new Response(null, { status: 502 }), new Response(null, { status: 504 }), "refused");
      expect((await api.getSnapshot(sessionId)).status).toBe("idle");
      failing.push(busy());
      await api.cancelTurn(sessionId);
      expect(sent.filter((attempt) => attempt.path.endsWith("/cancel"))).toHaveLength(2);
    });

    it("waits out a short 429 and gives up on a long one", async () => {
      const { api, failing, sent } = flaky({ ...fast, maxDelayMs: 1_000 });
      const limited = (seconds: number) =>
        Response.json(
          { error: { code: "rate_limited", message: "Slow down.", details: { retryAfterSeconds: seconds } } },
          { status: 429 },
        );
      failing.push(limited(0.01));
      await api.listSessions();
      expect(sent).toHaveLength(2);
      failing.push(limited(60));
      expect(await rejection(api.listSessions())).toMatchObject({ code: "rate_limited", status: 429 });
      expect(sent).toHaveLength(3);
    });

    it("throws the last error after maxRetries resends, and never resends what retrying cannot fix", async () => {
      const { runtime, api, sent, failing } = flaky();
      failing.push(busy(), busy(), busy(), busy());
      expect(await rejection(api.listSessions())).toMatchObject({ code: "unavailable", status: 503 });
      expect(sent).toHaveLength(4); // the first attempt and 3 resends
      sent.length = 0;
      const { sessionId, request } = await parked(api, runtime);
      sent.length = 0;
      failing.push(Response.json({ error: { code: "internal", message: "A bug." } }, { status: 500 }));
      expect(await rejection(api.getSnapshot(sessionId))).toMatchObject({ code: "internal" });
      expect(
        await rejection(api.respond(sessionId, [{ requestId: request.requestId, action: "accept", value: {} }])),
      ).toMatchObject({ code: "invalid_answer" });
      expect(await rejection(api.getSnapshot("ses_unknown"))).toMatchObject({ code: "not_found" });
      expect(sent).toHaveLength(3);
    });

    it("resends a session's creation under its key, which makes one session; never resends deleteSession", async () => {
      const { runtime, api, sent, failing } = flaky();
      failing.push("lost", "refused", busy());
      const { sessionId } = await api.createSession();
      expect(sent).toHaveLength(4);
      const [first] = sent;
      expect(first!.key).toMatch(/^[\w-]{22}$/);
      for (const attempt of sent) expect(attempt).toEqual(first);
      expect(await runtime.listSessions({ owner: "tester" })).toEqual([expect.objectContaining({ sessionId })]);
      // Created again under its key, it is the same session; a creation of its own is another.
      expect(await api.createSession({ key: first!.key! })).toEqual({ sessionId });
      expect((await api.createSession()).sessionId).not.toBe(sessionId);
      sent.length = 0;
      failing.push(busy());
      expect(await rejection(api.deleteSession(sessionId))).toMatchObject({ code: "unavailable" });
      expect(sent.map((attempt) => attempt.method)).toEqual(["DELETE"]);
    });

    it("sends each request once with retry: false, and stops waiting when the caller aborts", async () => {
      const once = flaky(false);
      once.failing.push(busy());
      expect(await rejection(once.api.listSessions())).toMatchObject({ code: "unavailable" });
      expect(once.sent).toHaveLength(1);
      const patient = flaky({ initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 });
      patient.failing.push(busy());
      const abort = new AbortController();
      const pending = rejection(patient.api.listSessions({ signal: abort.signal }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      abort.abort();
      expect(await pending).toMatchObject({ code: "aborted", status: 0 });
      expect(patient.sent).toHaveLength(1);
    });

    it("waits for the network while the browser says it is offline, without spending its resends", async () => {
      const page = { window: new EventTarget(), navigator: { onLine: false } };
      vi.stubGlobal("window", page.window);
      vi.stubGlobal("navigator", page.navigator);
      try {
        const { runtime, api, sent, failing } = flaky();
        const { sessionId, request } = await parked(api, runtime);
        sent.length = 0;
        failing.push("refused");
        const answer = { requestId: request.requestId, action: "accept" as const, value: { templateId: "calm" } };
        const reply = api.respond(sessionId, [answer]);
        // Far longer than three resends take: it waits, as sent.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(sent).toHaveLength(1);
        page.navigator.onLine = true;
        page.window.dispatchEvent(new Event("online"));
        expect(await reply).toEqual({ status: 202, resolutions: [answer] });
        expect(sent).toHaveLength(2);
        // A server that answers is not the network: its 503s are resent as many times as ever.
        page.navigator.onLine = false;
        failing.push(busy(), busy(), busy(), busy());
        expect(await rejection(api.listSessions())).toMatchObject({ code: "unavailable" });
        // Waiting for the network ends when the caller aborts.
        failing.push("refused");
        const abort = new AbortController();
        const pending = rejection(api.listSessions({ signal: abort.signal }));
        await new Promise((resolve) => setTimeout(resolve, 20));
        abort.abort();
        expect(await pending).toMatchObject({ code: "aborted" });
      } finally {
        vi.unstubAllGlobals();
      }
    });

    it("keeps an Idempotency-Key the caller sends", async () => {
      const { api, sent } = flaky();
      const { sessionId } = await api.createSession();
      await api.sendMessage(sessionId, "make me a poster", { headers: { "idempotency-key": "order-42" } });
      expect(sent.at(-1)!.key).toBe("order-42");
    });
  });

  describe("events", () => {
    it("streams a session's events in order, from the first or after a seq", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId } = await parked(api, runtime);
      const { lastSeq } = await api.getSnapshot(sessionId);
      const all = await take(api.events(sessionId), lastSeq);
      expect(all.map((event) => event.seq)).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
      expect(all[0]).toMatchObject({ type: "session.created", sessionId });
      expect(all.at(-1)).toMatchObject({ type: "turn.waiting" });
      const rest = await take(api.events(sessionId, { after: lastSeq - 2 }), 2);
      expect(rest).toEqual(all.slice(-2));
    });

    it("follows live events, and ends without an error when its signal aborts", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId, request } = await parked(api, runtime);
      const { lastSeq } = await api.getSnapshot(sessionId);
      const abort = new AbortController();
      const seen: ProtocolEvent[] = [];
      const following = (async () => {
        for await (const event of api.events(sessionId, { after: lastSeq, signal: abort.signal })) {
          seen.push(event);
          if (event.type === "turn.completed") abort.abort();
        }
      })();
      await api.respond(sessionId, [{ requestId: request.requestId, action: "accept", value: { templateId: "bold" } }]);
      await following;
      expect(seen[0]).toMatchObject({ type: "input.resolved", seq: lastSeq + 1 });
      expect(seen.at(-1)).toMatchObject({ type: "turn.completed" });
    });

    it("yields nothing more once its signal aborts, though more events had arrived with the one it aborted on", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId } = await parked(api, runtime);
      const abort = new AbortController();
      const seen: number[] = [];
      // The replay from the start arrives in one read: every event is queued before the loop takes the second.
      for await (const event of api.events(sessionId, { signal: abort.signal })) {
        seen.push(event.seq);
        if (event.seq === 2) abort.abort();
      }
      expect(seen).toEqual([1, 2]);
    });

    it("resumes after the last event received when the stream drops, each event once", async () => {
      const { runtime, handler } = replying(
        Array.from({ length: 3 }, (_, index) => ({ text: `Reply number ${index}.` })),
      );
      const resumedFrom: (string | null)[] = [];
      const api = createApiClient({
        url: base,
        reconnect: { initialDelayMs: 1, maxDelayMs: 5 },
        fetch: async (url, init) => {
          const response = await handler(new Request(url, init));
          if (!url.endsWith("/events")) return response;
          resumedFrom.push(new Headers(init?.headers).get("last-event-id"));
          return dropAfterBytes(response, 200); // a frame or two per connection
        },
      });
      const lastSeq = await readsEveryEvent(api, runtime, ["one", "two", "three"]);
      expect(resumedFrom.length).toBeGreaterThan(3);
      expect(resumedFrom[0]).toBe("0");
      // Every reconnect asks for what follows the last event received: further each time.
      const seqs = resumedFrom.map(Number);
      expect(seqs.every((seq, index) => index === 0 || seq > seqs[index - 1]!)).toBe(true);
      expect(seqs.at(-1)).toBeLessThan(lastSeq);
    });

    it("gives up a stream that stays silent, before its answer or after some events, and reopens it", async () => {
      const { runtime, handler } = replying([{ text: "Reply one." }, { text: "Reply two." }]);
      const opened: string[] = [];
      const hang = (signal: AbortSignal | null | undefined) =>
        new Promise<never>((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
      const api = createApiClient({
        url: base,
        reconnect: { initialDelayMs: 1, maxDelayMs: 5 },
        streamSilenceMs: 100,
        fetch: async (url, init) => {
          if (!url.endsWith("/events")) return handler(new Request(url, init));
          opened.push(new Headers(init?.headers).get("last-event-id") ?? "");
          // The first connection never answers; the second answers, sends its first chunk, then goes quiet.
          if (opened.length === 1) return hang(init?.signal);
          const response = await handler(new Request(url, init));
          if (opened.length > 2) return response;
          const reader = response.body!.getReader();
          const first = await reader.read();
          const body = new ReadableStream<Uint8Array>({
            start: (controller) => controller.enqueue(first.value!),
            pull: () => hang(init?.signal),
          });
          return new Response(body, { headers: response.headers });
        },
      });
      await readsEveryEvent(api, runtime, ["one", "two"]);
      expect(opened.length).toBe(3);
    });

    it("throws network after maxRetries reconnects in a row without an event", async () => {
      let attempts = 0;
      const api = createApiClient({
        url: base,
        reconnect: { initialDelayMs: 1, maxDelayMs: 2 },
        fetch: async () => {
          attempts++;
          throw new TypeError("connection refused");
        },
      });
      const error = await rejection(take(api.events("ses_1", { maxRetries: 2 }), 1));
      expect(error).toMatchObject({ code: "network", status: 0 });
      expect(attempts).toBe(3);
    });

    it("throws not_found once the session is deleted, after its last events", async () => {
      const { api, runtime } = setup(pickerScript);
      const { sessionId } = await parked(api, runtime);
      const { lastSeq } = await api.getSnapshot(sessionId);
      const seen: ProtocolEvent[] = [];
      let streaming!: () => void;
      const open = new Promise<void>((resolve) => {
        streaming = resolve;
      });
      const following = (async () => {
        for await (const event of api.events(sessionId, { after: lastSeq - 1 })) {
          seen.push(event);
          streaming();
        }
      })();
      following.catch(() => {});
      await open; // the stream is live: its first event (the turn's last) arrived
      await api.deleteSession(sessionId);
      const error = await rejection(following);
      expect(error).toMatchObject({ code: "not_found", status: 404 });
      expect(seen.map((event) => event.type)).toContain("tool.result");
    });

    it("throws bad_response for an event that does not decode", async () => {
      const api = createApiClient({
        url: base,
        fetch: async () =>
          new Response('id: 1\nevent: turn.started\ndata: {"nope":true}\n\n', {
            headers: { "content-type": "text/event-stream" },
          }),
      });
      const error = await rejection(take(api.events("ses_1"), 1));
      expect(error).toMatchObject({ code: "bad_response", status: 200 });
    });
  });
});

/** The body of `response`, erroring (as a dropped connection does) after `bytes` bytes, mid-frame. */
function dropAfterBytes(response: Response, bytes: number): Response {
  const reader = response.body!.getReader();
  let left = bytes;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        await reader.cancel();
        return controller.error(new TypeError("network connection lost"));
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      controller.enqueue(value.subarray(0, left));
      left -= value.byteLength;
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
