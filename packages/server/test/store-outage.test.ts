import { defineTool } from "@hitl-kit/protocol";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { z } from "zod";
import {
  createAgentRuntime,
  createFetchHandler,
  implement,
  memoryStore,
  type SessionStore,
  StoreUnavailable,
} from "../src/index.js";
import { scriptedModel } from "../src/models/scripted-model.js";
import { gatedModel, helloWorldOnce, writtenOnce } from "./gated-model.js";
import { checkOneResultPerCall, quiet } from "./harness.js";
import { pickTemplate } from "./tools.js";

/** With `long` set, a turn waiting for the store waits an hour between tries: only something that ends the wait lets it go on. */
const backoff = vi.hoisted(() => ({ long: false }));
vi.mock("../src/runtime/outage-wait.js", async (original) => {
  const real = await original<typeof import("../src/runtime/outage-wait.js")>();
  return { ...real, outageDelay: (tries: number) => (backoff.long ? 3_600_000 : real.outageDelay(tries)) };
});

/**
 * A memory store that, while `down`, fails every call as a store that cannot reach its
 * database does (or with `failure`), counting the calls it failed. Set `downAfterWrite`, and
 * the next write is applied, then fails as the connection drops before its answer, and the
 * store is down from then on.
 */
function flakyStore(failure = () => new StoreUnavailable(new Error("connect ECONNREFUSED 127.0.0.1:5432"))) {
  const store = memoryStore();
  const state = { down: false, failed: 0, downAfterWrite: false };
  const flaky = { ...store } as SessionStore;
  for (const [name, method] of Object.entries(store) as [keyof SessionStore, unknown][]) {
    if (typeof method !== "function" || name === "coordinate" || name === "close") continue;
    (flaky as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      if (!state.down && name === "write" && state.downAfterWrite) {
        state.downAfterWrite = false;
        await (method as (...a: unknown[]) => unknown).apply(store, args);
        state.down = true;
      }
      if (!state.down) return (method as (...a: unknown[]) => unknown).apply(store, args);
      state.failed += 1;
      return Promise.reject(failure());
    };
  }
  return { store: flaky, state };
}

const job = defineTool({ name: "refund", description: "Refunds.", inputSchema: z.object({}) });

function setUp(logger: Parameters<typeof createAgentRuntime>[0]["logger"] = quiet) {
  const { store, state } = flakyStore();
  let runs = 0;
  const tool = implement(job, async () => {
    runs += 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { refunded: 1500 };
  });
  const runtime = createAgentRuntime({
    model: scriptedModel([{ toolCalls: [{ toolName: "refund", input: {} }] }, { text: "Done." }]),
    tools: [tool],
    store,
    logger,
  });
  return { runtime, store, state, runs: () => runs };
}

describe("a store that cannot be reached for a while", () => {
  it("keeps a finished tool's result and writes it once the store is back, running the tool once", async () => {
    const { runtime, store, state, runs } = setUp();
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(runs()).toBe(1));
    state.down = true;
    await runtime.idle(); // the drive stopped: the result could not be written
    state.down = false;
    await vi.waitFor(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"), { timeout: 5000 });
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { refunded: 1500 } }),
    ]);
    expect(events.at(-1)?.type).toBe("turn.completed");
    expect(runs()).toBe(1);
    await runtime.close();
  });

  it("says so when it closes with such a result unwritten, for someone to check the call", async () => {
    const warnings: string[] = [];
    const { runtime, state, runs } = setUp({ warn: (line: unknown) => warnings.push(String(line)), error: () => {} });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(runs()).toBe(1));
    state.down = true;
    await runtime.idle();
    await runtime.close();
    expect(warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `closing: session ${sessionId}: the results of call_\\S+, which finished while the store could not be reached, were not written`,
        ),
      ),
    );
  });

  it("writes that result before a cancel ends the turn while the drive waits for the store", async () => {
    const { runtime, store, state } = setUp();
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(async () =>
      expect((await store.getToolCalls(sessionId, (await store.getSession(sessionId))!.turnId!, 1))[0]?.state).toBe(
        "executing",
      ),
    );
    state.down = true;
    await runtime.idle();
    state.down = false;
    // Before the drive looks again (100 ms on): the cancel has the drive end the turn now.
    await runtime.cancel(sessionId);
    await runtime.idle();
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { refunded: 1500 } }),
    ]);
    expect(events.at(-1)?.type).toBe("turn.cancelled");
    await new Promise((resolve) => setTimeout(resolve, 300)); // the drive's next look finds the turn over
    expect(await store.readEvents(sessionId, 0)).toEqual(events);
    await runtime.close();
  });

  describe("while a model's reply streams", () => {
    /**
     * Streams "Hello", calls `down`, streams " world." and waits until the store failed a few
     * times; then the reply ends, and the store is back.
     */
    async function streamThroughOutage(down: (state: ReturnType<typeof flakyStore>["state"]) => void) {
      const { store, state } = flakyStore();
      const { model, release, finish, state: modelState } = gatedModel("Hello", " world.");
      const runtime = createAgentRuntime({ model, tools: [], store, logger: quiet });
      const { sessionId } = await runtime.createSession();
      await runtime.sendMessage(sessionId, "go");
      await vi.waitFor(
        async () => expect(writtenOnce(await store.readEvents(sessionId, 0), []).text).toBe("Hello"), // the reply's first part
      );
      down(state);
      release(); // the rest of the reply streams while the store is away
      await vi.waitFor(() => expect(state.down && state.failed).toBeGreaterThan(2));
      finish();
      state.down = false;
      await vi.waitFor(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"), {
        timeout: 10_000,
      });
      await runtime.idle();
      const events = await store.readEvents(sessionId, 0);
      await runtime.close();
      return { events, calls: modelState.calls, transcript: await store.readTranscript(sessionId, 0) };
    }

    it("waits the store out and writes the reply once it is back, without calling the model again", async () => {
      const { events, calls, transcript } = await streamThroughOutage((state) => {
        state.down = true;
      });
      expect(calls).toBe(1);
      expect(writtenOnce(events, transcript)).toEqual(helloWorldOnce);
    });

    it("writes each event once when a write was applied though the store went away before it answered", async () => {
      const { events, calls, transcript } = await streamThroughOutage((state) => {
        state.downAfterWrite = true;
      });
      expect(calls).toBe(1);
      expect(writtenOnce(events, transcript)).toEqual(helloWorldOnce);
      expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    });

    it("keeps the reply streamed so far and ends the turn cancelled when a Stop comes as the store is back, without waiting the backoff out", async () => {
      onTestFinished(() => {
        backoff.long = false;
      });
      // Mid-reply (the model still streaming: the streamed part's write waits), and with the
      // reply over but not yet written (the step's write waits); after a few tries, and while
      // the wait before the next try is an hour long, which the Stop must end.
      for (const [finished, long] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ] as const) {
        const { store, state } = flakyStore();
        const { model, release, finish, state: modelState } = gatedModel("Hello", " world.");
        const runtime = createAgentRuntime({ model, tools: [], store, logger: quiet });
        const { sessionId } = await runtime.createSession();
        await runtime.sendMessage(sessionId, "go");
        await vi.waitFor(async () => expect(writtenOnce(await store.readEvents(sessionId, 0), []).text).toBe("Hello"));
        backoff.long = long;
        state.down = true;
        release(); // " world." streams while the store is away
        await vi.waitFor(() => expect(state.failed).toBeGreaterThan(long ? 0 : 2));
        if (finished) finish();
        state.down = false;
        // Before the drive's next try; it returns once the turn has stopped, so the wait must end.
        await runtime.cancel(sessionId);
        await runtime.idle();
        backoff.long = false;
        const events = await store.readEvents(sessionId, 0);
        const { types, text, replies } = writtenOnce(events, await store.readTranscript(sessionId, 0));
        expect(types).toEqual([...helloWorldOnce.types.slice(0, -1), "turn.cancelled"]);
        expect(text).toBe(helloWorldOnce.text);
        expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
        // A Stop drops the step: the model never sees its reply, as with a Stop mid-stream.
        expect(replies).toEqual([]);
        expect(modelState.calls).toBe(1);
        expect(await store.getSession(sessionId)).toMatchObject({ status: "idle", stepOpen: false });
        await new Promise((resolve) => setTimeout(resolve, 300)); // nothing is written after the turn ended
        expect(await store.readEvents(sessionId, 0)).toEqual(events);
        await runtime.close();
      }
    }, 30_000);
  });
});

describe("a session settled under its lock by another instance (the lock's connection dropped)", () => {
  it("answers the answer again from a fresh read: 409 for a different one, not 500", async () => {
    const store = memoryStore();
    const options = {
      model: scriptedModel([{ toolCalls: [{ toolName: "pick_template", input: { templates: ["a", "b"] } }] }]),
      tools: [pickTemplate],
      logger: quiet,
    };
    // Two runtimes on one store without a shared lock: as two instances whose lock was let go.
    let race: (() => Promise<unknown>) | undefined;
    const racing: SessionStore = {
      ...store,
      async getOpenRequests(sessionId) {
        const open = await store.getOpenRequests(sessionId);
        const other = race;
        race = undefined;
        await other?.();
        return open; // read before the other settled it
      },
    };
    const first = createAgentRuntime({ ...options, store: racing });
    const second = createAgentRuntime({ ...options, store });
    const { sessionId } = await first.createSession();
    await first.sendMessage(sessionId, "go");
    await first.idle();
    const [request] = await store.getOpenRequests(sessionId);
    const answer = (templateId: string) => [
      { requestId: request!.requestId, action: "accept" as const, value: { templateId } },
    ];
    race = () => second.respond(sessionId, answer("b"));
    await expect(first.respond(sessionId, answer("a"))).rejects.toMatchObject({
      code: "already_resolved",
      status: 409,
    });
    await second.idle();
    expect(checkOneResultPerCall(await store.readEvents(sessionId, 0))).toEqual([]);
    await first.close();
    await second.close();
  });
});

describe("the fetch handler while the store is away", () => {
  it("answers 503 while the store is away, logged to the runtime's logger (or the handler's own) once per 10 s", async () => {
    const { store, state } = flakyStore();
    const recorder = () => {
      const warnings: string[] = [];
      return { warnings, logger: { warn: (message: string) => warnings.push(message), error: () => {} } };
    };
    const ofRuntime = recorder();
    const ofHandler = recorder();
    const runtime = createAgentRuntime({ model: scriptedModel([]), tools: [], store, logger: ofRuntime.logger });
    const list = (handler: ReturnType<typeof createFetchHandler>) =>
      handler(new Request("http://127.0.0.1/api/agent/sessions"));
    try {
      await runtime.ready;
      state.down = true;
      const byDefault = createFetchHandler(runtime, { identify: () => "ada" });
      const own = createFetchHandler(runtime, { identify: () => "ada", logger: ofHandler.logger });
      for (const handler of [byDefault, byDefault, own, own]) {
        const response = await list(handler);
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({ error: { code: "unavailable" } });
      }
      expect(ofRuntime.warnings).toEqual([expect.stringContaining("get 503 until it is back")]);
      expect(ofHandler.warnings).toEqual([expect.stringContaining("get 503 until it is back")]);
    } finally {
      state.down = false;
      await runtime.close();
    }
  });
});

describe("the rate limit while the store is away", () => {
  it("does not count a request answered 503: a caller retrying through an outage is not refused 429 once it is back", async () => {
    const { store, state } = flakyStore();
    const runtime = createAgentRuntime({ model: scriptedModel([]), tools: [], store, logger: quiet });
    const handler = createFetchHandler(runtime, { identify: () => "ada", rateLimit: { maxCreates: 2 }, logger: quiet });
    const create = () =>
      handler(
        new Request("http://127.0.0.1/api/agent/sessions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        }),
      );
    try {
      await runtime.ready;
      state.down = true;
      for (let attempt = 0; attempt < 5; attempt += 1) expect((await create()).status).toBe(503);
      state.down = false;
      expect([(await create()).status, (await create()).status, (await create()).status]).toEqual([201, 201, 429]);
    } finally {
      await runtime.close();
    }
  });
});

describe("an event stream whose read of the log fails", () => {
  it("ends, for the client to reconnect and resume, with the outage logged as the handler logs it, not a stack per stream", async () => {
    const store = memoryStore();
    let failing = false;
    const readEvents = store.readEvents.bind(store);
    // The route's own look before it streams passes; the stream's read of the log fails.
    store.readEvents = (sessionId, afterSeq, limit) =>
      failing && afterSeq < Number.MAX_SAFE_INTEGER
        ? Promise.reject(new StoreUnavailable(new Error("connect ECONNREFUSED 127.0.0.1:5432")))
        : readEvents(sessionId, afterSeq, limit);
    const warnings: string[] = [];
    const errors: unknown[] = [];
    const logger = {
      warn: (message: string) => warnings.push(message),
      error: (...args: unknown[]) => errors.push(args),
    };
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hello." }]), tools: [], store, logger: quiet });
    try {
      const { sessionId } = await runtime.createSession({ owner: "ada" });
      await runtime.sendMessage(sessionId, "hi");
      await runtime.idle();
      failing = true;
      const handler = createFetchHandler(runtime, { identify: () => "ada", logger });
      for (let stream = 0; stream < 3; stream++) {
        const response = await handler(new Request(`http://127.0.0.1/api/agent/sessions/${sessionId}/events`));
        expect(response.status).toBe(200);
        // Read to its end: it ends (no error thrown by the read) after the retry hint.
        expect(await response.text()).toBe("retry: 1000\n\n");
      }
      expect(warnings).toEqual([expect.stringContaining("get 503 until it is back")]);
      expect(errors).toEqual([]);
    } finally {
      failing = false;
      await runtime.close();
    }
  });
});

describe("a store that can never start (trying again cannot help)", () => {
  const newer =
    "postgresStore: schema hitl is at version 99, newer than this @hitl-kit/server knows (4): a newer version migrated it.";
  const lasting = () => new StoreUnavailable(new Error(newer), { message: newer, lasting: true });
  const recorder = () => ({ warn: vi.fn(), error: vi.fn() });

  it("answers 503 with the store's own message logged once, not a 500 with a stack per request", async () => {
    const { store, state } = flakyStore(lasting);
    state.down = true;
    const logger = recorder();
    const runtime = createAgentRuntime({ model: scriptedModel([]), tools: [], store, logger });
    await expect(runtime.ready).rejects.toThrow(newer);
    const handler = createFetchHandler(runtime, { identify: () => "ada", rateLimit: false });
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const listed = await handler(new Request("http://127.0.0.1/api/agent/sessions"));
        expect(listed.status).toBe(503);
        expect(await listed.json()).toMatchObject({ error: { code: "unavailable" } });
        const created = await handler(
          new Request("http://127.0.0.1/api/agent/sessions", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          }),
        );
        expect(created.status).toBe(503);
      }
      expect(logger.error).not.toHaveBeenCalled();
      expect(logger.warn.mock.calls).toEqual([
        [
          `hitl-kit: ${newer.slice(0, -1)}; this instance answers 503 to every request that needs it until that is fixed and it is restarted.`,
        ],
      ]);
    } finally {
      await runtime.close();
    }
  });

  it("does not try to start again", async () => {
    const { store, state } = flakyStore(lasting);
    state.down = true;
    const runtime = createAgentRuntime({ model: scriptedModel([]), tools: [], store, logger: recorder() });
    await expect(runtime.ready).rejects.toThrow(newer);
    const tried = state.failed;
    await new Promise((resolve) => setTimeout(resolve, 500)); // a retry would come after 100 ms
    expect(state.failed).toBe(tried);
    await runtime.close();
  });

  it("stops a running turn once, leaving it for the next start, rather than driving it again and again", async () => {
    const { store, state } = flakyStore(lasting);
    const logger = recorder();
    let runs = 0;
    const tool = implement(job, async () => {
      runs += 1;
      state.down = true; // the store fails for good while the tool runs: its result cannot be written
      return { refunded: 1500 };
    });
    const runtime = createAgentRuntime({
      model: scriptedModel([{ toolCalls: [{ toolName: "refund", input: {} }] }, { text: "Done." }]),
      tools: [tool],
      store,
      logger,
    });
    await runtime.ready;
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(runs).toBe(1));
    await runtime.idle();
    const failed = state.failed;
    await new Promise((resolve) => setTimeout(resolve, 500)); // a retry would come after 100 ms
    expect(state.failed).toBe(failed);
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledWith(
      `hitl-kit: turns stop until the store is fixed and the server restarted: ${newer}`,
    );
    state.down = false;
    expect((await store.getSession(sessionId))?.status).toBe("running"); // for the next start to pick up
    await runtime.close();
  });
});
