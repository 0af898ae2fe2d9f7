import { defineTool } from "@hitl-kit/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  createFetchHandler,
  implement,
  type SessionStore,
  StoreUnavailable,
  scriptedModel,
} from "../src/index.js";
import { resilientPool } from "../src/store/postgres-errors.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { idleSession } from "../src/store/records.js";
import { gatedModel, helloWorldOnce, writtenOnce } from "./gated-model.js";
import { browser, checkOneResultPerCall, quiet } from "./harness.js";
import { type PostgresCluster, postgresAvailable, startPostgres } from "./postgres-cluster.js";
import { pickTemplate } from "./tools.js";

// A cluster of this file's own: its tests stop the database under a running instance, at
// once, as a crash does; each commit is in the WAL before it returns, so none is lost to it.
let cluster: PostgresCluster | undefined;
let url = "";
let schemas = 0;
beforeAll(async () => {
  if (!postgresAvailable) return;
  cluster = await startPostgres({ synchronous_commit: "on" });
  url = await cluster.createDatabase();
}, 60_000);
afterAll(() => cluster?.stop(), 60_000);

const opened: { runtime: AgentRuntime; store: SessionStore }[] = [];
afterEach(async () => {
  for (const { runtime, store } of opened.splice(0).reverse()) {
    await runtime.close();
    await store.close();
  }
});

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };

async function instance(options: Partial<AgentRuntimeOptions>, schema = `outage_${++schemas}`) {
  const store = postgresStore(url, { schema, leaseMs: 1_000, poolSize: 4 });
  const runtime = createAgentRuntime({
    model: scriptedModel([{ toolCalls: [pick] }, { text: "Done." }]),
    tools: [pickTemplate],
    logger: process.env.HITL_DEBUG ? console : quiet,
    ...options,
    store,
  });
  opened.push({ runtime, store });
  await runtime.ready;
  return { runtime, store };
}

const until = (check: () => Promise<unknown>) => vi.waitFor(check, { timeout: 15_000, interval: 50 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresAvailable)("an instance whose database goes away and comes back", () => {
  it("answers 503 unavailable meanwhile, loses nothing, and takes the same answer once it is back", async () => {
    const { runtime, store } = await instance({});
    const { call } = browser(createFetchHandler(runtime, { rateLimit: false }));
    const { sessionId } = (await call("POST", "/sessions", {})).body;
    await call("POST", `/sessions/${sessionId}/messages`, { text: "go" });
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("waiting"));
    const [request] = (await call("GET", `/sessions/${sessionId}`)).body.pending;
    const answer = { responses: [{ requestId: request.requestId, action: "accept", value: { templateId: "a" } }] };

    cluster!.halt();
    try {
      for (const [method, path, body] of [
        ["GET", `/sessions/${sessionId}`],
        ["POST", `/sessions/${sessionId}/responses`, answer],
      ] as const) {
        const reply = await call(method, path, body);
        expect([method, reply.status, reply.body.error.code]).toEqual([method, 503, "unavailable"]);
        expect(reply.body.error.message).toMatch(/cannot reach its session store/);
      }
    } finally {
      cluster!.resume();
    }
    await until(async () => expect((await call("POST", `/sessions/${sessionId}/responses`, answer)).status).toBe(202));
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { templateId: "a" } }),
    ]);
  }, 30_000);

  it("writes a server tool's own result once the database is back, when the tool finished while it was away", async () => {
    const job = defineTool({ name: "job", description: "Runs a while.", inputSchema: z.object({}) });
    let runs = 0;
    const tool = implement(job, async () => {
      runs += 1;
      await sleep(300);
      return { refunded: 1500 };
    });
    const { runtime, store } = await instance({
      model: scriptedModel([{ toolCalls: [{ toolName: "job", input: {} }] }, { text: "Done." }]),
      tools: [tool],
    });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await until(async () => expect(runs).toBe(1));
    cluster!.halt();
    try {
      await sleep(1_500); // the tool finishes while the database is away
    } finally {
      cluster!.resume();
    }
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { refunded: 1500 } }),
    ]);
    expect(events.at(-1)?.type).toBe("turn.completed");
    expect(runs).toBe(1);
  }, 30_000);

  /**
   * An instance whose model has streamed "Hello" of its reply when the database goes away; the
   * rest (" world.") streams while it is away, for `awayMs`.
   */
  async function streamingThroughOutage(awayMs: number, options: Partial<AgentRuntimeOptions> = {}, schema?: string) {
    const { model, release, finish, state } = gatedModel("Hello", " world.");
    const { runtime, store } = await instance({ model, tools: [], ...options }, schema);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await until(async () => expect(writtenOnce(await store.readEvents(sessionId, 0), []).text).toBe("Hello"));
    cluster!.halt();
    try {
      release();
      finish();
      await sleep(awayMs);
    } finally {
      cluster!.resume();
    }
    return { runtime, store, sessionId, state };
  }

  it("waits out an outage while a model's reply streams: the model is called once, and its reply written once", async () => {
    const { runtime, store, sessionId, state } = await streamingThroughOutage(1_500); // longer than the lease (1 s)
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    await runtime.idle();
    expect(state.calls).toBe(1);
    const events = await store.readEvents(sessionId, 0);
    expect(writtenOnce(events, await store.readTranscript(sessionId, 0))).toEqual(helloWorldOnce);
  }, 30_000);

  it("leaves the turn to an instance that took it over during the outage: it calls the model again, the transcript keeps one reply, and it is logged", async () => {
    const schema = `outage_${++schemas}`;
    const warnings: string[] = [];
    const logger = { warn: (message: unknown) => warnings.push(String(message)), error: () => {} };
    // The lease (1 s) lapses while the database is away. Another instance takes it, as one that
    // then dies would leave it: held, for now.
    const { runtime, store, sessionId, state } = await streamingThroughOutage(6_500, { logger }, schema);
    const pool = resilientPool({ connectionString: url, max: 1 });
    const lease = (expiry: string) =>
      pool.query(
        `UPDATE ${schema}.turn_leases SET holder = 'elsewhere', token = token + 1, expires_at = ${expiry} WHERE session_id = $1`,
        [sessionId],
      );
    await until(() => lease("now() + interval '1 hour'"));
    // The first instance finds the turn taken (its heartbeat, or its next try to write) and
    // drops what it held; it is then closed, so that the instance below, and no other, resumes
    // the turn once the lease lapses (the first one's sweep would race it for the lapsed lease).
    await until(async () =>
      expect(warnings).toContainEqual(expect.stringContaining("another instance took the turn over")),
    );
    await runtime.idle();
    await runtime.close();
    await lease("now()");
    await pool.end();
    const other = await instance({ model: scriptedModel([{ text: "Taken over." }]), tools: [] }, schema);
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    await other.runtime.idle();
    expect(state.calls).toBe(1); // the second call is the other instance's
    const events = await store.readEvents(sessionId, 0);
    expect((await store.readTranscript(sessionId, 0)).filter((message) => message.role === "assistant")).toEqual([
      { role: "assistant", content: [{ type: "text", text: "Taken over." }] },
    ]);
    // The first instance's cut-off message is abandoned, so clients drop its text.
    const [, cutOff] = events.filter((event) => event.type === "message.started") as { messageId: string }[];
    expect(events.filter((event) => event.type === "message.abandoned")).toEqual([
      expect.objectContaining({ messageId: cutOff!.messageId }),
    ]);
    expect(writtenOnce(events, []).text).toBe("HelloTaken over.");
    expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(1);
  }, 45_000);

  it("keeps a turn whose lease lapsed while the database was away, when no other instance took it", async () => {
    const booking = defineTool({ name: "book", description: "Asks for seats.", inputSchema: z.object({}) });
    const tool = implement(booking, async (_input, ctx) => {
      const answer = await ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number() }) });
      return answer.action === "accept" ? { booked: answer.value.seats } : { booked: 0 };
    });
    const { runtime, store } = await instance({
      model: scriptedModel([{ toolCalls: [{ toolName: "book", input: {} }] }, { text: "Booked." }]),
      tools: [tool],
    });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await until(async () => expect(await store.getOpenRequests(sessionId)).toHaveLength(1));
    const [question] = await store.getOpenRequests(sessionId);
    cluster!.halt();
    try {
      await sleep(2_500); // longer than the lease (1 s)
    } finally {
      cluster!.resume();
    }
    await until(async () =>
      expect(
        (await runtime.respond(sessionId, [{ requestId: question!.requestId, action: "accept", value: { seats: 4 } }]))
          .status,
      ).toBe(202),
    );
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { booked: 4 } }),
    ]);
  }, 30_000);

  it("never leaves a pooled connection without an error listener, so a dropped one cannot end the process", async () => {
    const pool = resilientPool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    // pg-pool stops listening when it hands a client out; `pg` emits `error` when the server drops it.
    expect(() => client.emit("error", new Error("terminating connection due to administrator command"))).not.toThrow();
    client.release(true);
    await pool.end();
  });

  it("keeps its timers through the outage: a request that fell due meanwhile expires once it is back", async () => {
    const { runtime, store } = await instance({ expireAfter: 300, deleteIdleAfter: 60_000 });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("waiting"));
    cluster!.halt();
    try {
      await sleep(1_500); // the expiry falls due while the database is away
    } finally {
      cluster!.resume();
    }
    await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
    const events = await store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.find((event) => event.type === "input.resolved")).toMatchObject({ action: "expire" });
  }, 30_000);
});

describe.skipIf(!postgresAvailable)("an instance whose database is not up yet when it starts", () => {
  it("migrates the schema on a later call once the database is up", async () => {
    cluster!.halt();
    let store: SessionStore;
    try {
      store = postgresStore(url, { schema: `outage_${++schemas}` });
      await expect(store.getSession("ses_none")).rejects.toThrow(StoreUnavailable);
      await expect(store.findKeyedTurn("ses_none", "key")).rejects.toThrow(StoreUnavailable);
    } finally {
      cluster!.resume();
    }
    try {
      await until(async () => expect(await store.getSession("ses_none")).toBeUndefined());
      await store.createSession(idleSession("ses_later"));
      expect((await store.getSession("ses_later"))?.status).toBe("idle");
    } finally {
      await store.close();
    }
  }, 30_000);

  it("starts once the database is up: a parked turn is answered, another instance's events reach its streams, close resolves", async () => {
    const schema = `outage_${++schemas}`;
    const runtimeOn = (store: SessionStore) =>
      createAgentRuntime({
        model: scriptedModel([{ toolCalls: [pick] }, { text: "Done." }]),
        tools: [pickTemplate],
        logger: process.env.HITL_DEBUG ? console : quiet,
        store,
      });
    cluster!.halt();
    const store = postgresStore(url, { schema, leaseMs: 1_000, poolSize: 4 });
    const runtime = runtimeOn(store);
    try {
      await expect(runtime.ready).rejects.toThrow(StoreUnavailable);
      await sleep(500);
    } finally {
      cluster!.resume();
    }
    try {
      let sessionId = "";
      await until(async () => {
        sessionId = (await runtime.createSession()).sessionId;
      });
      await runtime.sendMessage(sessionId, "go");
      await until(async () => expect((await store.getSession(sessionId))?.status).toBe("waiting"));
      const [request] = await store.getOpenRequests(sessionId);
      await runtime.respond(sessionId, [
        { requestId: request!.requestId, action: "accept", value: { templateId: "a" } },
      ]);
      await until(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"));
      expect(checkOneResultPerCall(await store.readEvents(sessionId, 0))).toEqual([]);

      // A second instance's commits reach a stream on the first: its listener was started late.
      const other = await instance({}, schema);
      const { sessionId: elsewhere } = await other.runtime.createSession();
      const streamed: string[] = [];
      const unsubscribe = runtime.subscribe(elsewhere, (event) => streamed.push(event.type));
      await other.runtime.sendMessage(elsewhere, "go");
      await until(async () => expect(streamed).toContain("input.requested"));
      unsubscribe();
    } finally {
      await expect(runtime.close()).resolves.toBeUndefined();
      await store.close();
    }
  }, 30_000);

  it("closes a runtime that never started without rethrowing why", async () => {
    cluster!.halt();
    try {
      const store = postgresStore(url, { schema: `outage_${++schemas}` });
      const runtime = createAgentRuntime({ model: scriptedModel([]), tools: [], logger: quiet, store });
      await expect(runtime.ready).rejects.toThrow(StoreUnavailable);
      await expect(runtime.close()).resolves.toBeUndefined();
      await store.close();
    } finally {
      cluster!.resume();
    }
  });
});
