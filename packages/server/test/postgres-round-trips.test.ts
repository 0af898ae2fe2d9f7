import type { ProtocolEvent } from "@hitl-kit/protocol";
import pg from "pg";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { SessionStore } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { idleSession } from "../src/store/records.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

const postgres = throwawayDatabase("trips");

/** A store on a schema of its own, with its coordination, both closed when the test ends. */
function open(schema: string, options: { leaseMs?: number } = {}) {
  const store = postgresStore(postgres.url(), { schema, poolSize: 2, ...options });
  const coordination = store.coordinate!();
  onTestFinished(async () => {
    await coordination.close();
    await store.close();
  });
  return { store, coordination };
}

/** Counts the statements sent under each name (or text) from now until the test ends. */
function countQueries() {
  const queries = vi.spyOn(pg.Client.prototype, "query");
  onTestFinished(() => queries.mockRestore());
  return (name: string) =>
    queries.mock.calls.filter(([query]) => {
      const named = query as { name?: string; text?: string } | string;
      return typeof named === "string" ? named.includes(name) : named.name === name || named.text?.includes(name);
    }).length;
}

async function createSession(store: SessionStore, sessionId = "s") {
  await store.createSession(idleSession(sessionId));
}

describe.skipIf(!postgresAvailable)("round trips of the Postgres store", () => {
  it("writes a message a section starts without reading first, and reads first when that message exists after all", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    // Session s is written in a section, session t the same way outside one (each write reads first).
    const earlier = {
      events: [
        { type: "turn.started" as const, turnId: "t1", cause: "message" as const },
        { type: "message.started" as const, messageId: "m0", role: "assistant" as const },
        { type: "text.delta" as const, messageId: "m0", delta: "Hello" },
        { type: "message.completed" as const, messageId: "m0" },
      ],
      session: { status: "running" as const, turnId: "t1", step: 1, stepOpen: false },
    };
    const started = {
      events: [
        { type: "message.started" as const, messageId: "m1", role: "assistant" as const },
        { type: "text.delta" as const, messageId: "m1", delta: "One" },
        { type: "message.completed" as const, messageId: "m1" },
      ],
    };
    // m0 again: a message the section did not read.
    const again = {
      events: [
        { type: "message.started" as const, messageId: "m0", role: "assistant" as const },
        { type: "text.delta" as const, messageId: "m0", delta: " again" },
      ],
    };
    for (const sessionId of ["s", "t"]) {
      await createSession(store, sessionId);
      await store.write(sessionId, earlier);
    }
    const count = countQueries();
    await coordination.lock.run("s", async () => {
      expect((await store.write("s", started)).ok).toBe(true);
      expect(count(`${schema}_read_for_write`)).toBe(0);
      // Taken to be new, it fails the statement, and the write reads it.
      expect((await store.write("s", again)).ok).toBe(true);
      expect(count(`${schema}_read_for_write`)).toBe(1);
    });
    for (const batch of [started, again]) expect((await store.write("t", batch)).ok).toBe(true);
    expect((await store.readEvents("s", 0)).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The same state but for when each was written (the messages' `at`).
    const untimed = (snapshot: Awaited<ReturnType<typeof store.readSnapshot>>) => ({
      ...snapshot,
      sessionId: "t",
      messages: snapshot?.messages.map(({ at, ...message }) => message),
    });
    const inSection = await store.readSnapshot("s", { limit: 1_000 });
    expect(untimed(inSection)).toEqual(untimed(await store.readSnapshot("t", { limit: 1_000 })));
    expect(inSection?.messages.map((message) => message.id)).toEqual(["m0", "m1"]);
  });

  it("gives a turn's lease up in the write that ends the turn, so another instance may take the turn at once", async () => {
    const schema = postgres.schema();
    const first = open(schema, { leaseMs: 10_000 });
    const second = open(schema, { leaseMs: 10_000 });
    await createSession(first.store);
    const { holder } = first.coordination.turns;
    expect(await first.coordination.turns.acquire("s")).toBe(true);
    const running = await first.store.write("s", {
      events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
      session: { status: "running", turnId: "t1", step: 1, stepOpen: false },
      requireLease: holder,
    });
    expect(running.ok).toBe(true);
    expect(await second.coordination.turns.acquire("s")).toBe(false);
    const parked = await first.store.write("s", {
      events: [{ type: "turn.waiting", turnId: "t1", requestIds: [] }],
      session: { status: "waiting" },
      requireLease: holder,
    });
    expect(parked.ok).toBe(true);
    // Before the first instance has released it.
    expect(await second.coordination.turns.acquire("s")).toBe(true);
    const count = countQueries();
    await first.coordination.turns.release("s");
    expect(count("turn_leases")).toBe(0);
    expect(await first.coordination.turns.holds("s")).toBe(false);
    // The lease is the second instance's now: a late write of the first is refused.
    const late = await first.store.write("s", {
      events: [{ type: "turn.started", turnId: "t1", cause: "responses" }],
      requireLease: holder,
    });
    expect(late).toEqual({ ok: false, reason: "lease" });
    const taken = await second.store.write("s", {
      events: [{ type: "turn.started", turnId: "t1", cause: "responses" }],
      session: { status: "running" },
      requireLease: second.coordination.turns.holder,
    });
    expect(taken.ok).toBe(true);
  });

  it("reads from the log no events of its own commits published here, and delivers those no one published", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await coordination.start();
    await createSession(store);
    const count = countQueries();
    const seen: ProtocolEvent[] = [];
    const unsubscribe = coordination.hub.subscribe("s", (event) => seen.push(event));
    onTestFinished(unsubscribe);
    // The subscription's own catch-up, once its bucket is listened to: the newest event, one row.
    await vi.waitFor(() => expect(count(`${schema}_last_event`)).toBe(1), { timeout: 5000, interval: 10 });
    // As the runtime commits: the write, then its events published to the hub.
    for (let index = 0; index < 30; index += 1) {
      const written = await store.write("s", { events: [{ type: "session.created" }] });
      if (!written.ok) throw new Error("the write was refused");
      coordination.hub.publish("s", written.events);
    }
    await vi.waitFor(() => expect(seen).toHaveLength(30), { timeout: 5000, interval: 10 });
    // Every notification has come (the listener delivers them in order) once one of a later write has.
    await store.write("s", { events: [{ type: "session.created" }] });
    await vi.waitFor(() => expect(seen).toHaveLength(31), { timeout: 5000, interval: 10 });
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
    // The write no one published came with its notification: nothing was read from the log.
    expect(count(`${schema}_read_events`)).toBe(0);
    expect(count(`${schema}_last_event`)).toBe(1);
  });
  it("hands a section's lock over to the session's next section in this process, with what the section read and wrote", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await createSession(store);
    const count = countQueries();
    const step = (index: number) =>
      coordination.lock.run("s", async () => {
        const before = count("");
        const session = await store.getSession("s");
        const written = await store.write("s", {
          events: [{ type: "turn.started", turnId: `t${index}`, cause: "message" }],
        });
        // One statement: the write, with no read before it, in the sections that took the lock over too.
        expect({ index, queries: count("") - before }).toEqual({ index, queries: 1 });
        return { seen: session?.lastSeq, written: written.ok };
      });
    const steps = [];
    for (let index = 0; index < 10; index += 1) steps.push(await step(index));
    expect(steps).toEqual(Array.from({ length: 10 }, (_, index) => ({ seen: index, written: true })));
    // Five sections a lock at most, so sections waiting in other instances get their turn.
    expect(count(`${schema}.lock_session(`)).toBe(2);
    await vi.waitFor(() => expect(count("pg_advisory_unlock")).toBe(2), { timeout: 5000, interval: 10 });
  });

  it("locks anew for a section after a write to the session outside its sections", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await createSession(store);
    const count = countQueries();
    await coordination.lock.run("s", async () => {
      await store.write("s", { events: [{ type: "turn.started", turnId: "t1", cause: "message" }] });
    });
    // A write outside the sections, then a section, in the same turn of the event loop.
    const outside = store.write("s", { events: [{ type: "session.created" }] });
    const seen = await coordination.lock.run("s", async () => {
      await outside;
      return (await store.getSession("s"))?.lastSeq;
    });
    expect(count(`${schema}.lock_session(`)).toBe(2);
    expect(seen).toBe(2);
  });
  it("reads the database in a section once a write from outside it committed after the section's lock was read", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await createSession(store);
    // A row lock holds the outside write back until the section has read with its lock.
    const blocker = new pg.Client({ connectionString: postgres.url() });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query("BEGIN");
    await blocker.query(`SELECT 1 FROM ${schema}.sessions WHERE session_id = 's' FOR UPDATE`);
    const outside = store.write("s", { events: [{ type: "session.created" }] });
    const seen = await coordination.lock.run("s", async () => {
      const before = (await store.getSession("s"))?.lastSeq;
      await blocker.query("COMMIT");
      expect((await outside).ok).toBe(true);
      return [before, (await store.getSession("s"))?.lastSeq, (await store.getOpenRequests("s")).length];
    });
    expect(seen).toEqual([0, 1, 0]);
  });
  it("locks anew for a section after one during which a write to the session came from outside it", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await createSession(store);
    const count = countQueries();
    let start!: () => void;
    const started = new Promise<void>((resolve) => {
      start = resolve;
    });
    // Set up here, the write runs outside the section, while the section holds the lock.
    const outside = started.then(() => store.write("s", { events: [{ type: "session.created" }] }));
    await coordination.lock.run("s", async () => {
      start();
      expect((await outside).ok).toBe(true);
    });
    const seen = await coordination.lock.run("s", async () => (await store.getSession("s"))?.lastSeq);
    expect(seen).toBe(1);
    expect(count(`${schema}.lock_session(`)).toBe(2);
  });
  it("answers a session left waiting from its last section's read while that section's lock is kept", async () => {
    const schema = postgres.schema();
    const { store, coordination } = open(schema);
    await createSession(store);
    const count = countQueries();
    const reads = () => count(`${schema}_session`);
    const leave = async (status: "waiting" | "running") => {
      await coordination.lock.run("s", async () => {
        const written = await store.write("s", {
          events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
          session: { status, turnId: "t1", step: 1, stepOpen: true },
        });
        expect(written.ok).toBe(true);
      });
      return (await store.getSession("s"))?.status;
    };
    expect(await leave("waiting")).toBe("waiting");
    expect(reads()).toBe(0);
    // A running turn's driver writes without the lock: its session is read from the database.
    expect(await leave("running")).toBe("running");
    expect(reads()).toBe(1);
    // Once the lock is let go, too.
    await new Promise((resolve) => setImmediate(resolve));
    await coordination.lock.run("s", async () => {
      await store.write("s", {
        events: [{ type: "turn.waiting", turnId: "t1", requestIds: [] }],
        session: { status: "waiting" },
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.getSession("s"))?.status).toBe("waiting");
    expect(reads()).toBe(2);
  });
  it("takes a turn's lease for its instance in the write that starts the turn, unless another live instance holds it", async () => {
    const schema = postgres.schema();
    const first = open(schema, { leaseMs: 10_000 });
    const second = open(schema, { leaseMs: 10_000 });
    await createSession(first.store);
    const count = countQueries();
    const acquires = () => count(`${schema}_acquire_lease`);
    const start = await first.store.write("s", {
      events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
      session: { status: "running", turnId: "t1", step: 0, stepOpen: false },
    });
    expect(start.ok).toBe(true);
    // The drive the write kicks acquires the lease without asking.
    expect(await first.coordination.turns.acquire("s")).toBe(true);
    expect(acquires()).toBe(0);
    expect(await second.coordination.turns.acquire("s")).toBe(false);
    const turn = { requireLease: first.coordination.turns.holder };
    expect((await first.store.write("s", { ...turn, session: { status: "waiting" } })).ok).toBe(true);
    // The second instance holds the lease of the next turn when the first one writes its start.
    expect(await second.coordination.turns.acquire("s")).toBe(true);
    const resume = await first.store.write("s", {
      events: [{ type: "turn.started", turnId: "t1", cause: "responses" }],
      session: { status: "resuming" },
    });
    expect(resume.ok).toBe(true);
    const asked = acquires();
    expect(await first.coordination.turns.acquire("s")).toBe(false);
    expect(acquires()).toBe(asked + 1);
  });
});
