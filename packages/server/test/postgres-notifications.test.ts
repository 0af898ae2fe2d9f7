import type { ProtocolEvent } from "@hitl-kit/protocol";
import pg from "pg";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { SessionStore } from "../src/index.js";
import { EVENT_BUCKETS, eventBucket, INLINE_EVENTS_BYTES } from "../src/store/postgres-listener.js";
import { LONGEST_SCHEMA } from "../src/store/postgres-schema.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { idleSession } from "../src/store/records.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

const postgres = throwawayDatabase("notes");

/** An instance's store and its started coordination on the schema, closed when the test ends. */
async function instance(schema: string) {
  const store = postgresStore(postgres.url(), { schema, poolSize: 2 });
  const coordination = store.coordinate!();
  onTestFinished(async () => {
    await coordination.close();
    await store.close();
  });
  await coordination.start();
  return { store, coordination };
}

/** A store that only writes (no coordination, so no listener), closed when the test ends. */
function writer(schema: string) {
  const store = postgresStore(postgres.url(), { schema, poolSize: 2 });
  onTestFinished(() => store.close());
  return store;
}

/** Session ids in distinct buckets, each in a bucket of three digits (the longest channel names). */
function sessionIds(count: number): string[] {
  const ids: string[] = [];
  const buckets = new Set<number>();
  for (let index = 0; ids.length < count; index += 1) {
    const id = `session-${index}`;
    const bucket = eventBucket(id);
    if (bucket < 100 || buckets.has(bucket)) continue;
    buckets.add(bucket);
    ids.push(id);
  }
  return ids;
}

async function createSession(store: SessionStore, sessionId: string) {
  await store.createSession(idleSession(sessionId));
}

const append = async (store: SessionStore, sessionId: string) => {
  const written = await store.write(sessionId, { events: [{ type: "session.created" }] });
  if (!written.ok) throw new Error(`the write to ${sessionId} was refused`);
};

/** What a listener saw of a session: its seqs. */
function listen(coordination: {
  hub: { subscribe(id: string, listener: (event: ProtocolEvent) => void): () => void };
}) {
  return (sessionId: string) => {
    const seen: number[] = [];
    const unsubscribe = coordination.hub.subscribe(sessionId, (event) => seen.push(event.seq));
    return { seen, unsubscribe };
  };
}

/** How many times a listener of the session on this instance was told it ended. */
function countEnds(
  coordination: { hub: { subscribe(id: string, listener: () => void, onEnd: () => void): () => void } },
  sessionId: string,
) {
  const ends = { count: 0 };
  coordination.hub.subscribe(
    sessionId,
    () => {},
    () => {
      ends.count += 1;
    },
  );
  return ends;
}

/** The statements sent, and a way to hold back those whose text matches until `release()`. */
function watchQueries(hold?: (text: string) => boolean) {
  const original = pg.Client.prototype.query;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held: string[] = [];
  const queries = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const text = typeof args[0] === "string" ? args[0] : undefined;
    if (text !== undefined && hold?.(text)) {
      held.push(text);
      return released.then(() => (original as (...a: unknown[]) => Promise<unknown>).apply(this, args));
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original);
  onTestFinished(() => queries.mockRestore());
  const named = (name: string) =>
    queries.mock.calls.filter(([query]) => (query as { name?: string }).name === name).length;
  return { queries, named, held, release };
}

/** Every notification a `pg` client received from now on: which client, on which channel, with what. */
function watchNotifications() {
  const received: { client: object; channel: string; payload: string }[] = [];
  const original = pg.Client.prototype.emit;
  const emit = vi.spyOn(pg.Client.prototype, "emit").mockImplementation(function (
    this: pg.Client,
    name: string | symbol,
    ...args: unknown[]
  ) {
    if (name === "notification") {
      const { channel, payload } = args[0] as pg.Notification;
      received.push({ client: this, channel, payload: payload ?? "" });
    }
    return original.call(this, name, ...args);
  } as typeof original);
  onTestFinished(() => emit.mockRestore());
  /** The clients that were notified of the session's commits. */
  const clientsOf = (sessionId: string) =>
    new Set(received.filter(({ payload }) => payload.startsWith(`["${sessionId}",`)).map(({ client }) => client));
  return { received, clientsOf };
}

describe.skipIf(!postgresAvailable)("event notifications across Postgres instances", () => {
  it("notifies an instance only of the sessions someone on it listens to, and no longer once they left", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const b = await instance(schema);
    const store = writer(schema);
    const [one, two, fence] = sessionIds(3) as [string, string, string];
    for (const id of [one, two, fence]) await createSession(store, id);
    const { named } = watchQueries();
    const onA = listen(a.coordination);
    const first = onA(one);
    const fenceOnA = onA(fence);
    const second = listen(b.coordination)(two);
    // Heard once, a session is listened to (however its instance listens).
    for (const [id, listener] of [
      [one, first],
      [two, second],
      [fence, fenceOnA],
    ] as const) {
      await vi.waitFor(
        async () => {
          await append(store, id);
          await new Promise((resolve) => setTimeout(resolve, 20));
          expect(listener.seen.length).toBeGreaterThan(0);
        },
        { timeout: 5000, interval: 10 },
      );
      const { lastSeq } = (await store.getSession(id))!;
      await vi.waitFor(() => expect(listener.seen.at(-1)).toBe(lastSeq), { timeout: 5000, interval: 10 });
    }
    const notifications = watchNotifications();
    const next = (listener: { seen: number[] }, count: number) =>
      Array.from({ length: count }, (_, index) => listener.seen.at(-1)! + index + 1);
    const [expectFirst, expectSecond, expectFence] = [next(first, 10), next(second, 10), next(fenceOnA, 1)];
    for (let index = 0; index < 10; index += 1) {
      await append(store, one);
      await append(store, two);
    }
    await append(store, fence);
    await vi.waitFor(
      () => {
        expect(first.seen.slice(-10)).toEqual(expectFirst);
        expect(second.seen.slice(-10)).toEqual(expectSecond);
        expect(fenceOnA.seen.at(-1)).toEqual(expectFence[0]);
      },
      { timeout: 5000, interval: 10 },
    );
    // One listening connection heard of each session: the one of the instance listening to it.
    const [heardOne] = notifications.clientsOf(one);
    expect(notifications.clientsOf(one).size).toBe(1);
    expect(notifications.clientsOf(two).size).toBe(1);
    expect(notifications.clientsOf(fence)).toEqual(new Set([heardOne]));
    expect(notifications.clientsOf(two).has(heardOne!)).toBe(false);
    expect(notifications.received.filter(({ client }) => client === heardOne)).toHaveLength(11);

    // The last listener of a session leaving unlistens its bucket: its commits reach no one.
    const heard = first.seen.length;
    const lastEvents = named(`${schema}_last_event`);
    first.unsubscribe();
    // The UNLISTEN has run once a later statement on that connection has: the LISTEN for a session subscribed after it.
    const [later] = sessionIds(4).slice(3) as [string];
    await createSession(store, later);
    onA(later);
    await vi.waitFor(() => expect(named(`${schema}_last_event`)).toBe(lastEvents + 1), {
      timeout: 5000,
      interval: 10,
    });
    const before = notifications.received.length;
    for (let index = 0; index < 5; index += 1) await append(store, one);
    // The fence: notifications reach a connection in commit order, so once this one came, any of `one`'s would have.
    await append(store, fence);
    await vi.waitFor(() => expect(fenceOnA.seen.at(-1)).toBe(expectFence[0]! + 1), { timeout: 5000, interval: 10 });
    expect(notifications.received.slice(before).map(({ payload }) => JSON.parse(payload)[0])).toEqual([fence]);
    expect(first.seen).toHaveLength(heard);
  });

  it("delivers to a new listener what another instance committed while its bucket's LISTEN was on its way", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const store = writer(schema);
    const [id] = sessionIds(1) as [string];
    await createSession(store, id);
    await append(store, id);
    const { held, release } = watchQueries((text) => text.startsWith("LISTEN"));
    // As the SSE stream does: listen, then read the log.
    const listener = listen(a.coordination)(id);
    expect((await a.store.readEvents(id, 0)).map((event) => event.seq)).toEqual([1]);
    await vi.waitFor(() => expect(held).toEqual([`LISTEN ${schema}_events_${eventBucket(id)}`]), {
      timeout: 5000,
      interval: 10,
    });
    // Committed after the read and before the LISTEN: no notification will tell of it.
    await append(store, id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listener.seen).toEqual([]);
    release();
    await vi.waitFor(() => expect(listener.seen).toEqual([2]), { timeout: 5000, interval: 10 });
    await append(store, id);
    await vi.waitFor(() => expect(listener.seen).toEqual([2, 3]), { timeout: 5000, interval: 10 });
  });

  it("delivers another instance's small batches from their notifications, and reads a big one from the log", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const store = writer(schema);
    const [id] = sessionIds(1) as [string];
    await createSession(store, id);
    const notifications = watchNotifications();
    const { named } = watchQueries();
    const reads = () => named(`${schema}_read_events`);
    const listener = listen(a.coordination)(id);
    // Once its bucket is listened to, the subscription catches up with the (empty) log.
    await vi.waitFor(() => expect(named(`${schema}_last_event`)).toBe(1), { timeout: 5000, interval: 10 });
    await append(store, id);
    await vi.waitFor(() => expect(listener.seen).toEqual([1]), { timeout: 5000, interval: 10 });
    expect(reads()).toBe(0);
    const big = await store.write(id, {
      events: Array.from({ length: 40 }, () => ({ type: "session.created" as const })),
    });
    expect(big.ok).toBe(true);
    await vi.waitFor(() => expect(listener.seen).toHaveLength(41), { timeout: 5000, interval: 10 });
    expect(reads()).toBe(1);
    await append(store, id);
    await vi.waitFor(() => expect(listener.seen).toHaveLength(42), { timeout: 5000, interval: 10 });
    expect(listener.seen).toEqual(Array.from({ length: 42 }, (_, index) => index + 1));
    expect(reads()).toBe(1);
    // Every payload stays well below PostgreSQL's limit of 8000 bytes: the big batch's names its seqs only.
    const sizes = notifications.received.map(({ payload }) => Buffer.byteLength(payload));
    expect(sizes).toHaveLength(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(INLINE_EVENTS_BYTES);
    expect(JSON.parse(notifications.received[1]!.payload)).toHaveLength(4);
  });

  it("listens again to every bucket in use after its connection drops, including one wanted while it reconnects", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const store = writer(schema);
    const [one, two] = sessionIds(2) as [string, string];
    for (const id of [one, two]) await createSession(store, id);
    await append(store, one);
    const { named, held, release } = watchQueries((text) => text.includes(`LISTEN ${schema}_control`));
    const onA = listen(a.coordination);
    const first = onA(one);
    // The newest event is read and delivered first; a second one appended before that read
    // answered would be the one it finds.
    await vi.waitFor(() => expect(first.seen).toEqual([1]), { timeout: 5000, interval: 10 });
    expect(named(`${schema}_last_event`)).toBe(1);
    await append(store, one);
    await vi.waitFor(() => expect(first.seen).toEqual([1, 2]), { timeout: 5000, interval: 10 });

    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    onTestFinished(() => admin.end());
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN ${schema}_%' OR query LIKE 'UNLISTEN ${schema}_%'`,
    );
    // Reconnected, its LISTEN held back: a session is listened to meanwhile, and both get events.
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5000, interval: 10 });
    expect(held[0]).toBe(`LISTEN ${schema}_control; LISTEN ${schema}_events_${eventBucket(one)}`);
    const second = onA(two);
    await append(store, one);
    await append(store, two);
    await append(store, two);
    release();
    await vi.waitFor(
      () => {
        expect(first.seen).toEqual([1, 2, 3]);
        // Nothing delivered before: the newest event, from which a stream reads what it lacks.
        expect(second.seen).toEqual([2]);
      },
      { timeout: 10_000, interval: 10 },
    );
    await append(store, one);
    await append(store, two);
    await vi.waitFor(
      () => {
        expect(first.seen).toEqual([1, 2, 3, 4]);
        expect(second.seen).toEqual([2, 3]);
      },
      { timeout: 5000, interval: 10 },
    );
  }, 20_000);

  it("opens one listening connection and one heartbeat when it is started again, as a runtime retrying its start does", async () => {
    const schema = postgres.schema();
    const { coordination } = await instance(schema);
    const intervals = vi.spyOn(globalThis, "setInterval");
    onTestFinished(() => intervals.mockRestore());
    await coordination.start();
    await coordination.start();
    expect(intervals).not.toHaveBeenCalled();
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    onTestFinished(() => admin.end());
    const { rows } = await admin.query(
      `SELECT count(*)::int AS count FROM pg_stat_activity WHERE query = 'LISTEN ${schema}_control'`,
    );
    expect(rows[0].count).toBe(1);
  });

  it("ends a session's listeners on every instance when one deletes it, and stops listening to its bucket", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const b = await instance(schema);
    const [id] = sessionIds(1) as [string];
    await createSession(a.store, id);
    const { named } = watchQueries();
    const ends = countEnds(a.coordination, id);
    await vi.waitFor(() => expect(named(`${schema}_last_event`)).toBe(1), { timeout: 5000, interval: 10 });
    // The runtime deletes through its store, whose commit tells every instance, then ends its own streams.
    expect(await b.store.deleteSession(id)).toBe(true);
    b.coordination.hub.end(id);
    await vi.waitFor(() => expect(ends.count).toBe(1), { timeout: 5000, interval: 10 });
    await vi.waitFor(
      () =>
        expect(
          vi
            .mocked(pg.Client.prototype.query)
            .mock.calls.some(([query]) => query === `UNLISTEN ${schema}_events_${eventBucket(id)}`),
        ).toBe(true),
      { timeout: 5000, interval: 10 },
    );
  });

  it("ends a session's listeners on every instance when a bare store deletes it (an admin job's erasure)", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const admin = writer(schema);
    const [id] = sessionIds(1) as [string];
    await createSession(a.store, id);
    const ends = countEnds(a.coordination, id);
    expect(await admin.deleteSession(id)).toBe(true);
    await vi.waitFor(() => expect(ends.count).toBe(1), { timeout: 5000, interval: 10 });
    // A session that was not there tells no one.
    expect(await admin.deleteSession(id)).toBe(false);
  });

  it("ends this instance's listeners only, when its runtime closes (endAll), and tells no other instance", async () => {
    const schema = postgres.schema();
    const a = await instance(schema);
    const b = await instance(schema);
    const [id] = sessionIds(1) as [string];
    await createSession(a.store, id);
    const ended = { a: 0, b: 0 };
    a.coordination.hub.subscribe(
      id,
      () => {},
      () => (ended.a += 1),
    );
    const onB = listen(b.coordination)(id);
    b.coordination.hub.subscribe(
      id,
      () => {},
      () => (ended.b += 1),
    );
    a.coordination.hub.endAll();
    expect(ended).toEqual({ a: 1, b: 0 });
    // B still hears what is appended.
    await vi.waitFor(
      async () => {
        await append(a.store, id);
        expect(onB.seen.length).toBeGreaterThan(0);
      },
      { timeout: 5000, interval: 50 },
    );
    expect(ended.b).toBe(0);
  });

  it("keeps the channel and statement names of the longest schema name within PostgreSQL's 63 bytes, and refuses a longer one", async () => {
    const longest = `n${"x".repeat(LONGEST_SCHEMA - 1)}`;
    expect(() => postgresStore(postgres.url(), { schema: `${longest}x` })).toThrow(
      `must be lower-case letters, digits and _ (at most ${LONGEST_SCHEMA},`,
    );
    const { queries, named } = watchQueries();
    const a = await instance(longest);
    const store = writer(longest);
    // Closed here, to see it give its leases up.
    const other = writer(longest);
    const b = { coordination: other.coordinate!() };
    const [id] = sessionIds(1) as [string];
    await createSession(store, id);
    const listener = listen(a.coordination)(id);
    await vi.waitFor(() => expect(named(`${longest}_last_event`)).toBe(1), { timeout: 5000, interval: 10 });
    await append(store, id);
    await vi.waitFor(() => expect(listener.seen).toEqual([1]), { timeout: 5000, interval: 10 });
    // The statements with the longest names, and those whose names only their ends tell apart.
    await store.listSessions({ owner: "someone" });
    for (const turns of [a.coordination.turns, b.coordination.turns]) await turns.acquire(id);
    await a.coordination.turns.release(id);
    expect(await b.coordination.turns.acquire(id)).toBe(true);
    await b.coordination.close();
    const names = queries.mock.calls.flatMap(([query]) => {
      const name = (query as { name?: string }).name;
      return name === undefined ? [] : [name];
    });
    expect(names).toEqual(expect.arrayContaining([`${longest}_owner_sessions_after`, `${longest}_release_leases`]));
    for (const name of names) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    const channels = new Set(
      queries.mock.calls.flatMap(([query]) =>
        typeof query === "string" ? [...query.matchAll(/LISTEN (\w+)/g)].map((match) => match[1]!) : [],
      ),
    );
    expect(channels).toEqual(new Set([`${longest}_control`, `${longest}_events_${eventBucket(id)}`]));
    expect(Buffer.byteLength(`${longest}_events_${EVENT_BUCKETS - 1}`)).toBeLessThanOrEqual(63);
  });
});
