import type { ProtocolEvent } from "@hitl-kit/protocol";
import { defineTool, emptySnapshot, reduceSession } from "@hitl-kit/protocol";
import pg from "pg";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { z } from "zod";
import { type AgentRuntime, createAgentRuntime, implement, type SessionStore, scriptedModel } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { checkOneResultPerCall, quiet } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";
import { pickTemplate } from "./tools.js";

const postgres = throwawayDatabase("inst");

const opened: { runtime: AgentRuntime; store: SessionStore }[] = [];
afterEach(async () => {
  // A test that failed may leave a tool waiting on its question: its turn is left, not waited for.
  for (const { runtime, store } of opened.splice(0).reverse()) {
    await runtime.close({ timeoutMs: 2000 });
    await store.close();
  }
});

const slow = defineTool({
  name: "slow_job",
  description: "Takes a while.",
  inputSchema: z.object({}),
});

/** A tool whose runs finish when the test says so. */
/** Session `s` as the runtime creates it, with `changes`. */
const sessionS = (changes: Partial<{ status: "idle" | "waiting"; step: number; stepOpen: boolean }> = {}) => ({
  sessionId: "s",
  createdAt: new Date().toISOString(),
  status: "idle" as const,
  step: 0,
  stepOpen: false,
  approvedTools: [],
  ...changes,
});

/** Call c1 of turn t1, parked on request r1: the call, the request on the wire, and its open record. */
function parkedPick(messageId?: string) {
  const call = {
    toolCallId: "c1",
    turnId: "t1",
    step: 1,
    index: 0,
    toolName: "pick_template",
    ...(messageId === undefined ? {} : { messageId }),
    input: {},
    state: "parked" as const,
    requestId: "r1",
  };
  const wire = {
    requestId: "r1",
    toolCallId: "c1",
    toolName: "pick_template",
    kind: "input" as const,
    input: {},
    answerSchema: {},
  };
  const open = {
    requestId: "r1",
    toolCallId: "c1",
    turnId: "t1",
    request: wire,
    schemaHash: "h",
    state: "open" as const,
  };
  return { call, wire, open };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started = 0;
  const tool = implement(slow, async () => {
    started += 1;
    await opened;
    return { done: true };
  });
  return { tool, open, started: () => started };
}

/** An instance: its own store (pool, listener) on the schema, and a runtime. */
async function instance(
  schema: string,
  options: Pick<Partial<Parameters<typeof createAgentRuntime>[0]>, "tools" | "maxSessionsPerOwner"> = {},
) {
  const store = postgresStore(postgres.url(), { schema, leaseMs: 400, poolSize: 4 });
  const runtime = createAgentRuntime({
    model: scriptedModel([{ toolCalls: [{ toolName: "slow_job", input: {} }] }, { text: "Done." }]),
    tools: options.tools ?? [pickTemplate],
    store,
    logger: process.env.HITL_DEBUG ? console : quiet,
    ...(options.maxSessionsPerOwner === undefined ? {} : { maxSessionsPerOwner: options.maxSessionsPerOwner }),
  });
  const made = { runtime, store };
  opened.push(made);
  await runtime.ready;
  return made;
}

/**
 * A turn `t9` of the session that a dead instance started: its lease runs on for `leaseFor`
 * (nothing renews it, nothing answers its channel), so the write did not take it for `store`'s instance.
 */
async function orphanTurn(schema: string, store: SessionStore, sessionId: string, leaseFor: string) {
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  try {
    await admin.query(
      `INSERT INTO ${schema}.turn_leases VALUES ($1, 'dead-instance', 7, now() + interval '${leaseFor}')`,
      [sessionId],
    );
  } finally {
    await admin.end();
  }
  await store.write(sessionId, {
    events: [{ type: "turn.started", turnId: "t9", cause: "message" }],
    transcript: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    session: { status: "running", turnId: "t9", step: 0, stepOpen: false },
  });
}

/**
 * Until the test ends, the pool queries `drop` picks fail as on a dropped connection; it sees
 * every pool query (a prepared statement's `name`, and its `values`).
 */
function dropQueries(drop: (query: { name?: string; values?: unknown[] }) => boolean) {
  const original = pg.Pool.prototype.query;
  const query = vi.spyOn(pg.Pool.prototype, "query").mockImplementation(function (this: pg.Pool, ...args: unknown[]) {
    if (drop(args[0] as { name?: string; values?: unknown[] })) {
      return Promise.reject(new Error("Connection terminated unexpectedly"));
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original);
  onTestFinished(() => query.mockRestore());
}

/** Waits until the session is idle, then checks that its one call got the slow job's own result, once. */
async function finishedOnce(store: SessionStore, sessionId: string) {
  await vi.waitFor(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"), {
    timeout: 5000,
    interval: 20,
  });
  const log = await store.readEvents(sessionId, 0);
  expect(checkOneResultPerCall(log)).toEqual([]);
  expect(log.filter((event) => event.type === "tool.result")).toEqual([
    expect.objectContaining({ outcome: "ok", output: { done: true } }),
  ]);
}

describe.skipIf(!postgresAvailable)("instances on one Postgres database", () => {
  it("streams to a listener on one instance what another appended, in order, also after its LISTEN connection drops", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const b = await instance(schema);
    const { sessionId } = await b.runtime.createSession();
    const seen: ProtocolEvent[] = [];
    a.runtime.subscribe(sessionId, (event) => seen.push(event));

    await b.store.write(sessionId, { events: [{ type: "turn.started", turnId: "t1", cause: "message" }] });
    // The listener may also get the session's first event, committed as it subscribed.
    const seqs = () => seen.map((event) => event.seq).filter((seq) => seq > 1);
    await vi.waitFor(() => expect(seqs()).toEqual([2]), { timeout: 5000, interval: 10 });

    // Drop every LISTEN connection: the listener reconnects and reads what it missed from the log.
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'");
    await admin.end();
    await b.store.write(sessionId, {
      events: [
        { type: "message.started", messageId: "m", role: "assistant" },
        { type: "text.delta", messageId: "m", delta: "hi" },
      ],
    });
    await b.store.write(sessionId, { events: [{ type: "message.completed", messageId: "m" }] });
    await vi.waitFor(() => expect(seqs()).toEqual([2, 3, 4, 5]), {
      timeout: 10_000,
      interval: 20,
    });
    expect(seen.filter((event) => event.seq > 1).map((event) => event.type)).toEqual([
      "turn.started",
      "message.started",
      "text.delta",
      "message.completed",
    ]);
  }, 20_000);

  it("caps an owner's sessions across instances, with requests racing on both", async () => {
    const schema = postgres.schema();
    const a = await instance(schema, { maxSessionsPerOwner: 2 });
    const b = await instance(schema, { maxSessionsPerOwner: 2 });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => (index % 2 ? a : b).runtime.createSession({ owner: "alice" })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(2);
    expect(results.filter((result) => result.status === "rejected").map((result) => result.reason.code)).toEqual([
      "session_limit",
      "session_limit",
      "session_limit",
      "session_limit",
    ]);
    expect(await a.runtime.listSessions({ owner: "alice" })).toHaveLength(2);
  });

  it("closes once when close() is called again, at once or after it resolved", async () => {
    const { runtime } = await instance(postgres.schema());
    const first = runtime.close();
    expect(runtime.close()).toBe(first);
    await Promise.all([first, runtime.close()]);
    await runtime.close();
  });

  it("never recovers a live instance's turn when another starts, and takes a dead one's over after its lease", async () => {
    const schema = postgres.schema();
    const first = gate();
    const a = await instance(schema, { tools: [first.tool] });
    const { sessionId } = await a.runtime.createSession();
    await a.runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(first.started()).toBe(1), { timeout: 5000, interval: 10 });

    // A newcomer starts while A runs the tool: the turn is A's.
    const second = gate();
    const b = await instance(schema, { tools: [second.tool] });
    await new Promise((resolve) => setTimeout(resolve, 900)); // two lease periods: A keeps renewing
    expect(second.started()).toBe(0);
    first.open();
    await a.runtime.idle();
    await finishedOnce(b.store, sessionId);

    // A turn whose instance died (its lease lapses, nothing renews it) is taken over by B, now alone.
    opened.splice(opened.indexOf(a), 1);
    await a.runtime.close();
    await a.store.close();
    const { sessionId: orphan } = await b.runtime.createSession();
    await orphanTurn(schema, b.store, orphan, "300 milliseconds");
    await vi.waitFor(() => expect(second.started()).toBe(1), { timeout: 5000, interval: 20 });
    second.open();
    await vi.waitFor(async () => expect((await b.store.getSession(orphan))?.status).toBe("idle"), {
      timeout: 5000,
      interval: 20,
    });
    expect(checkOneResultPerCall(await b.store.readEvents(orphan, 0))).toEqual([]);
  }, 20_000);

  it("takes no live instance's turn after an outage of the database longer than the lease", async () => {
    const schema = postgres.schema();
    const first = gate();
    const a = await instance(schema, { tools: [first.tool] });
    const second = gate();
    await instance(schema, { tools: [second.tool] });
    const { sessionId } = await a.runtime.createSession();
    await a.runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(first.started()).toBe(1), { timeout: 5000, interval: 10 });
    // No instance reaches the database for three lease periods: A's lease lapses unrenewed.
    let down = true;
    dropQueries(() => down);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    down = false;
    // Back, B finds the lapsed lease at its next look; A renews it meanwhile, so B leaves it.
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(second.started()).toBe(0);
    first.open();
    await finishedOnce(a.store, sessionId);
  }, 20_000);

  it("drives a turn it took over again when asking for its lease failed on a dropped connection, keeping no lease", async () => {
    const schema = postgres.schema();
    const { tool, open: finish, started } = gate();
    const b = await instance(schema, { tools: [tool] });
    const { sessionId } = await b.runtime.createSession();
    // Recovery takes the dead instance's turn once its lease lapses, then the driver asks for the
    // lease again: that second ask fails as a dropped connection does.
    let asks = 0;
    dropQueries(({ name }) => name === `${schema}_acquire_lease` && ++asks === 2);
    await orphanTurn(schema, b.store, sessionId, "200 milliseconds");
    await vi.waitFor(() => expect(started()).toBe(1), { timeout: 5000, interval: 20 });
    expect(asks).toBeGreaterThanOrEqual(3);
    finish();
    await finishedOnce(b.store, sessionId);
  }, 20_000);

  it("keeps the turn's lease while its tool's result waits for the store, so no other instance writes it as interrupted", async () => {
    const schema = postgres.schema();
    const job = implement(slow, async () => ({ done: true }));
    const a = await instance(schema, { tools: [job] });
    const { sessionId } = await a.runtime.createSession();
    // The write of the tool's result fails once, as on a dropped connection.
    let failed = false;
    let released = 0;
    dropQueries(({ name, values }) => {
      if (name === `${schema}_release_lease`) released += 1;
      if (failed || name !== `${schema}_write_all` || !JSON.stringify(values).includes("tool.result")) return false;
      failed = true;
      return true;
    });
    await a.runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(failed).toBe(true), { timeout: 5000, interval: 5 });
    await finishedOnce(a.store, sessionId);
    // The lease was never given up on its own: the write that ended the turn gave it up.
    expect(released).toBe(0);
  }, 20_000);

  it("hands a question's tool only an answer its own schema takes, though another instance took it", async () => {
    const schema = postgres.schema();
    const heard: unknown[] = [];
    const asking = implement(slow, async (_input, ctx) => {
      try {
        const answer = await ctx.ask({
          prompt: "Which file, and how many copies?",
          schema: z.object({
            path: z.string().refine((path) => !path.includes(".."), "no parent directories"),
            copies: z.string().transform(Number),
          }),
        });
        heard.push(answer);
        return { done: true };
      } catch (error) {
        heard.push((error as Error).message);
        throw error;
      }
    });
    const a = await instance(schema, { tools: [asking] });
    const b = await instance(schema, { tools: [asking] });
    const run = async (value: unknown) => {
      const { sessionId } = await a.runtime.createSession();
      await a.runtime.sendMessage(sessionId, "go");
      let requestId = "";
      await vi.waitFor(
        async () => {
          [{ requestId = "" } = { requestId: "" }] = (await b.runtime.getSnapshot(sessionId)).pending;
          expect(requestId).not.toBe("");
        },
        { timeout: 5000, interval: 20 },
      );
      // A asks; B, which has only the question's JSON Schema, takes the answer.
      const taken = await b.runtime.respond(sessionId, [{ requestId, action: "accept", value }]);
      await vi.waitFor(async () => expect((await a.store.getSession(sessionId))?.status).toBe("idle"), {
        timeout: 10_000,
      });
      const log = await a.store.readEvents(sessionId, 0);
      expect(checkOneResultPerCall(log)).toEqual([]);
      return { taken, result: log.find((event) => event.type === "tool.result") };
    };

    const good = await run({ path: "report.pdf", copies: "3" });
    expect(good.taken.status).toBe(202);
    expect(heard.shift()).toEqual({ action: "accept", value: { path: "report.pdf", copies: 3 } });
    expect(good.result).toMatchObject({ outcome: "ok" });

    const sly = await run({ path: "../../etc/passwd", copies: "3" });
    expect(sly.taken.status).toBe(202);
    expect(heard.shift()).toMatch(/taken by another server instance.*path: no parent directories/);
    expect(sly.result).toMatchObject({ outcome: "error" });
  }, 30_000);

  it("runs a tool again on the instance that takes over a dead one's turn, its open question kept and answered there once", async () => {
    const schema = postgres.schema();
    const runs: number[] = [];
    const asking = implement(
      slow,
      async (_input, ctx) => {
        runs.push(ctx.attempt);
        const answer = await ctx.ask({ prompt: "How many copies?", schema: z.object({ copies: z.number() }) });
        return answer.action === "accept" ? { done: true, copies: answer.value.copies } : { done: false };
      },
      { rerunAfterRestart: true },
    );
    const a = await instance(schema, { tools: [asking] });
    const b = await instance(schema, { tools: [asking] });
    const { sessionId } = await a.runtime.createSession();
    await a.runtime.sendMessage(sessionId, "go");
    let question = "";
    await vi.waitFor(
      async () => {
        [{ requestId: question = "" } = { requestId: "" }] = (await b.runtime.getSnapshot(sessionId)).pending;
        expect(question).not.toBe("");
      },
      { timeout: 5000, interval: 20 },
    );
    // A dies: its connections go, nothing renews its lease, and B takes the turn over once it lapses.
    opened.splice(opened.indexOf(a), 1);
    onTestFinished(() => a.runtime.close({ timeoutMs: 100 }));
    await a.store.close();
    await vi.waitFor(() => expect(runs).toEqual([1, 2]), { timeout: 5000, interval: 20 });
    expect((await b.runtime.getSnapshot(sessionId)).pending.map((request) => request.requestId)).toEqual([question]);
    expect(
      (await b.runtime.respond(sessionId, [{ requestId: question, action: "accept", value: { copies: 2 } }])).status,
    ).toBe(202);
    await vi.waitFor(async () => expect((await b.store.getSession(sessionId))?.status).toBe("idle"), {
      timeout: 5000,
      interval: 20,
    });
    const log = await b.store.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(log)).toEqual([]);
    expect(log.filter((event) => event.type === "input.requested")).toHaveLength(1);
    expect(log.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { done: true, copies: 2 } }),
    ]);
  }, 20_000);

  it("stops a turn another instance drives saying why: a deletion as deleted, a Stop as stopped, a message as the person moving on, to the tool's signal and its question", async () => {
    const schema = postgres.schema();
    const seen: { signal: unknown; asked: unknown }[] = [];
    const asking = implement(slow, async (_input, ctx) => {
      const answer = await ctx.ask({ prompt: "Go on?", schema: z.object({ go: z.boolean() }), signal: ctx.signal });
      seen.push({ signal: ctx.signal.reason, asked: answer });
      return { done: answer.action === "accept" };
    });
    const a = await instance(schema, { tools: [asking] });
    const b = await instance(schema, { tools: [asking] });
    /** A session whose turn A drives, its tool waiting on its question; and what A streams of it. */
    const asked = async () => {
      const { sessionId } = await a.runtime.createSession();
      const streamed: ProtocolEvent[] = [];
      a.runtime.subscribe(sessionId, (event) => streamed.push(event));
      await a.runtime.sendMessage(sessionId, "go");
      await vi.waitFor(async () => expect((await b.runtime.getSnapshot(sessionId)).pending).toHaveLength(1), {
        timeout: 5000,
        interval: 20,
      });
      return { sessionId, streamed };
    };

    const deleted = await asked();
    await b.runtime.deleteSession(deleted.sessionId);
    expect(seen.shift()).toMatchObject({
      signal: { name: "AbortError", message: "The session was deleted." },
      asked: { action: "cancel", reason: "The session was deleted." },
    });
    expect(deleted.streamed.filter((event) => event.type === "input.resolved")).toMatchObject([
      { action: "cancel", reason: "The session was deleted." },
    ]);
    expect(await a.store.getSession(deleted.sessionId)).toBeUndefined();

    const cancelled = await asked();
    await b.runtime.cancel(cancelled.sessionId);
    expect(seen.shift()).toMatchObject({
      signal: { name: "AbortError", message: "The person stopped the turn." },
      asked: { action: "cancel", reason: "The person stopped the turn." },
    });
    const log = await a.store.readEvents(cancelled.sessionId, 0);
    expect(checkOneResultPerCall(log)).toEqual([]);
    expect(log.filter((event) => event.type === "input.resolved")).toMatchObject([
      { action: "cancel", reason: "The person stopped the turn." },
    ]);
    expect(log.at(-1)).toMatchObject({ type: "turn.cancelled" });

    // A message instead of an answer stops the turn the same way, then runs as its own turn.
    const movedOn = await asked();
    expect(await b.runtime.sendMessage(movedOn.sessionId, "never mind")).toMatchObject({ repeated: false });
    const why = "The person sent a new message instead of answering.";
    expect(seen.shift()).toMatchObject({ signal: { message: why }, asked: { action: "cancel", reason: why } });
    await vi.waitFor(async () => expect((await a.store.getSession(movedOn.sessionId))?.status).toBe("idle"), {
      timeout: 5000,
      interval: 20,
    });
    const moved = await a.store.readEvents(movedOn.sessionId, 0);
    expect(checkOneResultPerCall(moved)).toEqual([]);
    expect(moved.filter((event) => event.type === "input.resolved")).toMatchObject([{ action: "cancel", reason: why }]);
    expect(moved.filter((event) => event.type.startsWith("turn."))).toMatchObject([
      { type: "turn.started" },
      { type: "turn.cancelled" },
      { type: "turn.started", cause: "message" },
      { type: "turn.completed" },
    ]);
  }, 30_000);

  it("keeps a cancel that lands while the turn's instance is dead: the turn ends once its lease lapses", async () => {
    const schema = postgres.schema();
    let started = 0;
    // A tool that runs until its turn is stopped, if a takeover gets as far as running it.
    const job = implement(slow, (_input, { signal }) => {
      started += 1;
      return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    const b = await instance(schema, { tools: [job] });
    const { sessionId } = await b.runtime.createSession();
    await orphanTurn(schema, b.store, sessionId, "600 milliseconds");

    await b.runtime.cancel(sessionId);
    const ended = async () => {
      const log = await b.store.readEvents(sessionId, 0);
      expect((await b.store.getSession(sessionId))?.status).toBe("idle");
      expect(log.filter((event) => event.type.startsWith("turn."))).toEqual([
        expect.objectContaining({ type: "turn.started", turnId: "t9" }),
        expect.objectContaining({ type: "turn.cancelled", turnId: "t9" }),
      ]);
      expect(checkOneResultPerCall(log)).toEqual([]);
    };
    // cancel() ends the turn itself when it gets the lease once it lapses; when this instance's
    // recovery took the turn over first, it returns once the driver is told, and the driver
    // writes the end a moment later (a CI run on Node 22 read the log before it).
    await vi.waitFor(ended, { timeout: 5000, interval: 20 });
    // Whether the cancel or a takeover got the lease first, nothing resumes the turn later.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await ended();
    expect(started).toBeLessThanOrEqual(1);
  }, 20_000);

  it("keeps a cancel whose instance stops before the dead driver's lease lapses: the one taking the turn over ends it", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const { sessionId } = await a.runtime.createSession();
    await orphanTurn(schema, a.store, sessionId, "1 second");
    // A takes the cancel, keeps it, and waits for the lease; it stops before the lease lapses.
    const cancelling = a.runtime.cancel(sessionId).catch(() => "stopped first");
    await vi.waitFor(async () => expect((await a.store.getSession(sessionId))?.cancelRequested).toBe("t9"), {
      timeout: 5000,
      interval: 10,
    });
    opened.splice(opened.indexOf(a), 1);
    await a.runtime.close();
    await a.store.close();
    await cancelling;

    const { tool, started } = gate();
    const b = await instance(schema, { tools: [tool] });
    await vi.waitFor(async () => expect((await b.store.getSession(sessionId))?.status).toBe("idle"), {
      timeout: 5000,
      interval: 20,
    });
    const log = await b.store.readEvents(sessionId, 0);
    expect(log.filter((event) => event.type.startsWith("turn."))).toEqual([
      expect.objectContaining({ type: "turn.started", turnId: "t9" }),
      expect.objectContaining({ type: "turn.cancelled", turnId: "t9" }),
    ]);
    expect(started()).toBe(0);
    expect(checkOneResultPerCall(log)).toEqual([]);
  }, 20_000);

  it("refuses a turn's write from an instance whose lease lapsed or was taken, in the write itself", async () => {
    const schema = postgres.schema();
    const store = postgresStore(postgres.url(), { schema, leaseMs: 400, poolSize: 2 });
    const coordination = store.coordinate!();
    onTestFinished(async () => {
      await coordination.close();
      await store.close();
    });
    await store.createSession(sessionS());
    const turnWrite = { events: [{ type: "turn.started" as const, turnId: "t1", cause: "message" as const }] };
    const { holder } = coordination.turns;
    // No lease yet: refused; held: written.
    expect(await store.write("s", { ...turnWrite, requireLease: holder })).toEqual({ ok: false, reason: "lease" });
    expect(await coordination.turns.acquire("s")).toBe(true);
    expect(await store.write("s", { ...turnWrite, requireLease: holder })).toMatchObject({ ok: true });
    // Another instance took it over: the write of the one that still thinks it drives is refused, and nothing is appended.
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query(`UPDATE ${schema}.turn_leases SET holder = 'other', token = token + 1 WHERE session_id = 's'`);
    await admin.end();
    expect(await store.write("s", { ...turnWrite, requireLease: holder })).toEqual({ ok: false, reason: "lease" });
    expect(await store.readEvents("s", 0)).toHaveLength(1);
  });

  it("reads in a section what every section before it wrote, from its lock's round trip, and keeps its own writes", async () => {
    const schema = postgres.schema();
    const [a, b] = [0, 1].map(() => postgresStore(postgres.url(), { schema, leaseMs: 400, poolSize: 2 }));
    const [first, second] = [a!.coordinate!(), b!.coordinate!()];
    onTestFinished(async () => {
      for (const coordination of [first!, second!]) await coordination.close();
      for (const store of [a!, b!]) await store.close();
    });
    await a!.createSession(sessionS());
    const { call, open } = parkedPick();
    let leave!: () => void;
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const writer = first!.lock.run("s", async () => {
      entered();
      await left;
      const written = await a!.write("s", {
        events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
        session: { status: "waiting", turnId: "t1", step: 1, stepOpen: true },
        toolCalls: [call],
        requests: [open],
      });
      expect(written.ok).toBe(true);
      // Its own write, as the section goes on.
      expect(await a!.getSession("s")).toMatchObject({ status: "waiting", lastSeq: 1 });
      expect(await a!.getOpenRequests("s")).toEqual([open]);
    });
    await inside;
    // The second instance asks for the lock while the first holds it, then reads as soon as it has it.
    const queries = vi.spyOn(pg.Client.prototype, "query");
    onTestFinished(() => queries.mockRestore());
    const reader = second!.lock.run("s", async () => {
      const before = queries.mock.calls.length;
      const seen = {
        session: await b!.getSession("s"),
        open: await b!.getOpenRequests("s"),
        calls: await b!.getToolCalls("s", "t1", 1),
        request: await b!.getRequest("s", "r1"),
      };
      return { seen, queries: queries.mock.calls.length - before };
    });
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await vi.waitFor(
      async () => {
        const { rows } = await admin.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        expect(rows).toHaveLength(1);
      },
      { timeout: 5000, interval: 10 },
    );
    await admin.end();
    leave();
    await writer;
    const { seen, queries: asked } = await reader;
    expect(seen).toEqual({
      session: expect.objectContaining({ status: "waiting", turnId: "t1", step: 1, lastSeq: 1 }),
      open: [open],
      calls: [call],
      request: open,
    });
    expect(asked).toBe(0);
    // Outside a section, the store reads the database (once the section's lock, kept for a turn of the event loop, is let go).
    await new Promise((resolve) => setImmediate(resolve));
    const outside = queries.mock.calls.length;
    expect(await b!.getSession("s")).toMatchObject({ status: "waiting" });
    expect(queries.mock.calls.length).toBe(outside + 1);
  });

  it("writes from a section without reading first while no other write came, and reads first once one did", async () => {
    const schema = postgres.schema();
    const [a, b] = [0, 1].map(() => postgresStore(postgres.url(), { schema, poolSize: 2 }));
    const coordination = a!.coordinate!();
    onTestFinished(async () => {
      await coordination.close();
      for (const store of [a!, b!]) await store.close();
    });
    await a!.createSession(sessionS());
    const { call, wire, open } = parkedPick("m1");
    await a!.write("s", {
      events: [
        { type: "turn.started", turnId: "t1", cause: "message" },
        { type: "message.started", messageId: "m1", role: "assistant" },
        { type: "text.delta", messageId: "m1", delta: "Pick" },
        { type: "tool.called", messageId: "m1", toolCallId: "c1", toolName: "pick_template", input: {} },
        { type: "input.requested", requests: [wire] },
      ],
      toolCalls: [call],
      requests: [open],
      session: { status: "waiting", turnId: "t1", step: 1, stepOpen: true },
    });
    const queries = vi.spyOn(pg.Client.prototype, "query");
    onTestFinished(() => queries.mockRestore());
    const reads = () =>
      queries.mock.calls.filter(([query]) => (query as { name?: string }).name === `${schema}_read_for_write`).length;
    await coordination.lock.run("s", async () => {
      const settled = await a!.write("s", {
        events: [
          { type: "input.resolved", requestId: "r1", toolCallId: "c1", action: "accept", value: { pick: 1 } },
          { type: "tool.result", toolCallId: "c1", outcome: "ok", output: { pick: 1 } },
        ],
        requests: [{ ...open, state: "settled", resolution: { action: "accept", value: { pick: 1 }, at: "now" } }],
        toolCalls: [{ ...call, state: "done", outcome: "ok", output: { pick: 1 } }],
        requireOpen: ["r1"],
      });
      expect(settled.ok).toBe(true);
      expect(reads()).toBe(0);
      // Another instance streams into the message (a turn's writes are fenced by its lease, not the lock).
      expect((await b!.write("s", { events: [{ type: "text.delta", messageId: "m1", delta: " one" }] })).ok).toBe(true);
      expect(reads()).toBe(1);
      const completed = await a!.write("s", { events: [{ type: "message.completed", messageId: "m1" }] });
      expect(completed.ok).toBe(true);
      expect(reads()).toBe(2);
    });
    const log = await b!.readEvents("s", 0);
    expect(log.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await b!.readSnapshot("s", { limit: 1_000 })).toEqual(log.reduce(reduceSession, emptySnapshot("s")));
  });

  it("applies writes racing from several instances once each, in order, and settles a request once", async () => {
    const schema = postgres.schema();
    const stores = [0, 1, 2].map(() => postgresStore(postgres.url(), { schema, poolSize: 3 }));
    onTestFinished(async () => {
      for (const store of stores) await store.close();
    });
    await stores[0]!.createSession(sessionS({ status: "waiting", step: 1, stepOpen: true }));
    const { open } = parkedPick();
    expect((await stores[0]!.write("s", { requests: [open] })).ok).toBe(true);
    const queries = vi.spyOn(pg.Client.prototype, "query");
    onTestFinished(() => queries.mockRestore());
    const settle = (store: SessionStore, action: "accept" | "decline") =>
      store.write("s", {
        events: [{ type: "input.resolved", requestId: "r1", toolCallId: "c1", action }],
        requests: [{ ...open, state: "settled", resolution: { action, at: "now" } }],
        requireOpen: ["r1"],
      });
    const results = await Promise.all(
      stores.flatMap((store, index) => [
        ...Array.from({ length: 10 }, () => store.write("s", { events: [{ type: "session.created" }] })),
        settle(store, index === 0 ? "accept" : "decline"),
      ]),
    );
    const reasons = results.map((result) => (result.ok ? "ok" : result.reason));
    expect(reasons.filter((reason) => reason === "ok")).toHaveLength(31);
    expect(reasons.filter((reason) => reason === "settled")).toHaveLength(2);
    const log = await stores[1]!.readEvents("s", 0);
    expect(log.map((event) => event.seq)).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
    expect(log.filter((event) => event.type === "input.resolved")).toHaveLength(1);
    expect(await stores[2]!.getSession("s")).toMatchObject({ lastSeq: 31 });
    // Some writes found the row changed after their read and were written again, with the row locked.
    const lockedWrites = queries.mock.calls.filter(
      ([query]) => (query as { name?: string }).name === `${schema}_lock_row`,
    );
    expect(lockedWrites.length).toBeGreaterThan(0);
  });

  it("drives a turn that a settlement resumes while its drive ends, after the drive's last look at the session", async () => {
    // Leases long enough that looking for orphaned turns (every leaseMs) does not pick the turn up instead.
    const store = postgresStore(postgres.url(), { schema: postgres.schema(), leaseMs: 10_000, poolSize: 4 });
    // The drive that parked gives the lease up, then reads the session to see whether to go on:
    // the answer comes right after that read, before the drive has ended.
    let released = false;
    let answer: (() => Promise<unknown>) | undefined;
    const coordinate = store.coordinate!.bind(store);
    store.coordinate = () => {
      const coordination = coordinate();
      const release = coordination.turns.release.bind(coordination.turns);
      coordination.turns.release = async (sessionId) => {
        await release(sessionId);
        released = true;
      };
      return coordination;
    };
    const getSession = store.getSession.bind(store);
    store.getSession = async (sessionId) => {
      const session = await getSession(sessionId);
      const now = released ? answer : undefined;
      released = false;
      if (now) {
        answer = undefined;
        await now();
      }
      return session;
    };
    const runtime = createAgentRuntime({
      model: scriptedModel(() => ({ toolCalls: [{ toolName: "pick_template", input: { templates: ["a"] } }] })),
      tools: [pickTemplate],
      store,
      logger: quiet,
    });
    opened.push({ runtime, store });
    const { sessionId } = await runtime.createSession();
    const requested: string[] = [];
    runtime.subscribe(sessionId, (event) => {
      if (event.type !== "input.requested") return;
      requested.push(event.requests[0]!.requestId);
      if (requested.length === 1) {
        answer = () =>
          runtime.respond(sessionId, [{ requestId: requested[0]!, action: "accept", value: { templateId: "a" } }]);
      }
    });
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(requested).toHaveLength(2), { timeout: 3000, interval: 20 });
    expect(answer).toBeUndefined();
  });

  it("settles each expired request once when every instance sweeps", async () => {
    const schema = postgres.schema();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "pick_template", input: { templates: ["a"] } }] },
      { text: "Too late." },
    ]);
    const make = async () => {
      const store = postgresStore(postgres.url(), { schema, leaseMs: 400, poolSize: 4 });
      const runtime = createAgentRuntime({ model, tools: [pickTemplate], store, expireAfter: 300, logger: quiet });
      opened.push({ runtime, store });
      await runtime.ready;
      return { runtime, store };
    };
    const instances = [await make(), await make(), await make()];
    const ids: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const { runtime } = instances[index % 3]!;
      const { sessionId } = await runtime.createSession();
      await runtime.sendMessage(sessionId, "go");
      ids.push(sessionId);
    }
    const store = instances[0]!.store;
    await vi.waitFor(
      async () => {
        for (const id of ids) expect((await store.getSession(id))?.status).toBe("idle");
      },
      { timeout: 10_000, interval: 50 },
    );
    for (const id of ids) {
      const log = await store.readEvents(id, 0);
      expect(checkOneResultPerCall(log)).toEqual([]);
      expect(log.filter((event) => event.type === "input.resolved")).toEqual([
        expect.objectContaining({ action: "expire" }),
      ]);
    }
  }, 30_000);
});
