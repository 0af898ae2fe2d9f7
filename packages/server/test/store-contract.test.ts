import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { emptySnapshot, type InputRequest, type Message, reduceSession } from "@hitl-kit/protocol";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStore, type RequestRecord, type SessionStore } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { tempDir } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";
import { batchesOf, projectionOps } from "./projection-ops.js";

const dirs: ReturnType<typeof tempDir>[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) dir.cleanup();
});

function sqliteOnDisk() {
  const dir = tempDir();
  dirs.push(dir);
  return sqliteStore(join(dir.path, "contract.sqlite"));
}

// Postgres: one throwaway cluster for the file, a schema of its own for each store.
const postgres = throwawayDatabase("contract");

const implementations: [string, () => SessionStore][] = [
  ["memoryStore", memoryStore],
  ["sqliteStore", sqliteOnDisk],
  ...(postgresAvailable
    ? [
        ["postgresStore", () => postgresStore(postgres.url(), { schema: postgres.schema(), poolSize: 4 })] as [
          string,
          () => SessionStore,
        ],
      ]
    : []),
];

const session = (sessionId: string, createdAt = "2026-11-22T10:00:00.000Z", owner?: string) => ({
  sessionId,
  ...(owner === undefined ? {} : { owner }),
  createdAt,
  status: "idle" as const,
  step: 0,
  stepOpen: false,
  approvedTools: [],
});

function request(requestId: string, expiresAt?: number): RequestRecord {
  const wire: InputRequest = {
    requestId,
    toolCallId: `call_${requestId}`,
    toolName: "t",
    kind: "input",
    input: {},
    answerSchema: {},
  };
  return {
    requestId,
    toolCallId: wire.toolCallId,
    turnId: "turn_1",
    request: wire,
    schemaHash: "h",
    state: "open",
    ...(expiresAt ? { expiresAt } : {}),
  };
}

describe.each(implementations)("%s", (_name, create) => {
  const open = () => {
    const store = create();
    stores.push(store);
    return store;
  };

  it("keeps a projection equal to a fold of its log, whole and page by page, after random operations", async () => {
    let run = 0;
    // One store; each run has a session of its own.
    const store = open();
    await fc.assert(
      fc.asyncProperty(projectionOps, fc.integer({ min: 1, max: 7 }), async (ops, pageSize) => {
        const id = `p${++run}`;
        await store.createSession(session(id));
        for (const batch of batchesOf(ops)) expect((await store.write(id, batch)).ok).toBe(true);
        const fold = (await store.readEvents(id, 0)).reduce(reduceSession, emptySnapshot(id));
        expect(await store.readSnapshot(id, { limit: 1_000 })).toEqual(fold);

        const paged: Message[] = [];
        let before: number | undefined;
        do {
          const page = await store.readSnapshot(id, { limit: pageSize, ...(before === undefined ? {} : { before }) });
          expect(page!.messages.length).toBeLessThanOrEqual(pageSize);
          paged.unshift(...page!.messages);
          before = page!.before === undefined ? undefined : Number(page!.before);
        } while (before !== undefined);
        expect(paged).toEqual(fold.messages);

        const streaming = fold.messages
          .filter((message) => message.status === "streaming")
          .map((message) => message.id);
        expect(await store.streamingMessageIds(id)).toEqual(streaming);
      }),
      { numRuns: 60 },
    );
    // 60 random sessions: about 10 s on Postgres on a quiet 2-core machine, over 30 s on a busy one.
  }, 120_000);

  it("refuses a second session of an id in use, naming it, and keeps the first", async () => {
    const store = open();
    await store.createSession(session("s1", "2026-11-22T10:00:00.000Z", "ada"));
    await expect(store.createSession(session("s1", "2026-11-22T11:00:00.000Z", "bob"))).rejects.toThrow(
      "Session s1 exists already.",
    );
    expect(await store.getSession("s1")).toMatchObject({ owner: "ada", createdAt: "2026-11-22T10:00:00.000Z" });
  });

  it("numbers events from 1 without gaps and reads them after a seq, in pages", async () => {
    const store = open();
    await store.createSession(session("s1"));
    const first = await store.write("s1", {
      events: [{ type: "session.created" }, { type: "turn.started", turnId: "t", cause: "message" }],
    });
    const second = await store.write("s1", { events: [{ type: "turn.completed", turnId: "t" }] });
    expect(first.ok && first.events.map((event) => event.seq)).toEqual([1, 2]);
    expect(second.ok && second.events[0]).toMatchObject({
      seq: 3,
      sessionId: "s1",
      type: "turn.completed",
      at: expect.any(String),
    });
    expect((await store.readEvents("s1", 0)).map((event) => event.seq)).toEqual([1, 2, 3]);
    expect((await store.readEvents("s1", 1, 1)).map((event) => event.seq)).toEqual([2]);
    expect(await store.readEvents("s1", 3)).toEqual([]);
    expect((await store.getSession("s1"))?.lastSeq).toBe(3);
  });

  it("finds the turn a keyed message started, however many turns ago, in its session only", async () => {
    const store = open();
    await store.createSession(session("s1"));
    await store.createSession(session("s2"));
    const started = (turnId: string, idempotencyKey?: string) => ({
      type: "turn.started" as const,
      turnId,
      cause: "message" as const,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    await store.write("s1", { events: [started("t0", "key-0")] });
    for (let turn = 1; turn <= 20; turn++) {
      await store.write("s1", { events: [started(`t${turn}`, turn % 2 ? `key-${turn}` : undefined)] });
    }
    expect(await store.findKeyedTurn("s1", "key-0")).toBe("t0");
    expect(await store.findKeyedTurn("s1", "key-19")).toBe("t19");
    expect(await store.findKeyedTurn("s1", "key-2")).toBeUndefined();
    expect(await store.findKeyedTurn("s2", "key-0")).toBeUndefined();
    expect(await store.findKeyedTurn("nope", "key-0")).toBeUndefined();
  });

  it("keeps every string as written, a NUL and half a surrogate pair too, and finds keyed turns beside them", async () => {
    const store = open();
    const odd = "nul \u0000, half an emoji \ud83d, its other half \ude00, C:\\u0000 and 😀";
    await store.createSession(session("s"));
    const call = {
      toolCallId: "c",
      turnId: "t1",
      step: 1,
      index: 0,
      toolName: "t",
      input: { odd },
      state: "parked" as const,
    };
    const asked = request("r1");
    asked.request.input = { odd };
    const written = await store.write("s", {
      events: [
        { type: "turn.started", turnId: "t1", cause: "message", idempotencyKey: "key-1" },
        { type: "message.started", messageId: "m1", role: "user" },
        { type: "text.delta", messageId: "m1", delta: odd },
      ],
      transcript: [{ role: "user", content: [{ type: "text", text: odd }] }],
      session: { title: odd, status: "running", turnId: "t1", step: 1 },
      toolCalls: [call],
      requests: [asked],
    });
    expect(written.ok).toBe(true);
    await store.write("s", {
      events: [{ type: "turn.started", turnId: "t2", cause: "message", idempotencyKey: "key-2" }],
    });

    expect((await store.getSession("s"))?.title).toBe(odd);
    expect((await store.listSessions()).map((summary) => summary.title)).toEqual([odd]);
    expect(await store.readEvents("s", 0)).toMatchObject([{}, {}, { delta: odd }, { idempotencyKey: "key-2" }]);
    expect((await store.readSnapshot("s"))?.messages[0]?.parts).toEqual([{ type: "text", text: odd }]);
    expect(await store.readTranscript("s")).toEqual([{ role: "user", content: [{ type: "text", text: odd }] }]);
    expect(await store.getToolCalls("s", "t1", 1)).toEqual([call]);
    expect((await store.getOpenRequests("s"))[0]?.request.input).toEqual({ odd });
    expect(await store.findKeyedTurn("s", "key-1")).toBe("t1");
    expect(await store.findKeyedTurn("s", "key-2")).toBe("t2");
  });

  it("keeps sessions apart and lists them newest first", async () => {
    const store = open();
    await store.createSession(session("a", "2026-11-22T10:00:00.000Z"));
    await store.createSession(session("b", "2026-11-22T11:00:00.000Z"));
    await store.write("a", { events: [{ type: "session.created" }], session: { title: "first" } });
    expect(await store.readEvents("b", 0)).toEqual([]);
    expect((await store.listSessions()).map((summary) => [summary.sessionId, summary.title, summary.lastSeq])).toEqual([
      ["b", undefined, 0],
      ["a", "first", 1],
    ]);
    // How many requests wait for the person, counted per session, open ones only.
    await store.write("a", { requests: [request("r1"), request("r2")] });
    await store.write("a", {
      requests: [{ ...request("r2"), state: "settled", resolution: { action: "cancel", at: "now" } }],
    });
    expect((await store.listSessions()).map((summary) => [summary.sessionId, summary.pending])).toEqual([
      ["b", 0],
      ["a", 1],
    ]);
    expect(await store.getSession("nope")).toBeUndefined();
    expect(await store.write("nope", { events: [{ type: "session.created" }] })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });

  it("appends the transcript in order and replaces tool calls and requests by id", async () => {
    const store = open();
    await store.createSession(session("s"));
    await store.write("s", { transcript: [{ role: "user", content: [{ type: "text", text: "1" }] }] });
    await store.write("s", { transcript: [{ role: "user", content: [{ type: "text", text: "2" }] }] });
    expect((await store.readTranscript("s")).map((message) => (message.content[0] as { text: string }).text)).toEqual([
      "1",
      "2",
    ]);

    const call = {
      toolCallId: "c",
      turnId: "turn_1",
      step: 1,
      index: 0,
      toolName: "t",
      input: {},
      state: "parked" as const,
    };
    await store.write("s", { toolCalls: [call], requests: [request("r1")] });
    await store.write("s", { toolCalls: [{ ...call, state: "done", outcome: "ok", output: 1 }] });
    expect(await store.getToolCalls("s", "turn_1", 1)).toEqual([{ ...call, state: "done", outcome: "ok", output: 1 }]);
    expect(await store.getToolCalls("s", "turn_1", 2)).toEqual([]);
    expect(await store.getToolCalls("s", "turn_2", 1)).toEqual([]);
    expect((await store.getOpenRequests("s")).map((record) => record.requestId)).toEqual(["r1"]);
    // A step's calls come back in call order, whatever their ids.
    const ids = ["call_z", "call_1", "call_m"];
    await store.write("s", { toolCalls: ids.map((toolCallId, index) => ({ ...call, toolCallId, step: 2, index })) });
    expect((await store.getToolCalls("s", "turn_1", 2)).map((record) => record.toolCallId)).toEqual(ids);
  });

  it("applies a batch whole, or not at all when a guard fails", async () => {
    const store = open();
    await store.createSession(session("s"));
    await store.write("s", { requests: [request("r1"), request("r2")] });
    const settled = {
      ...request("r1"),
      state: "settled" as const,
      resolution: { action: "cancel" as const, at: "now" },
    };
    expect((await store.write("s", { requests: [settled], requireOpen: ["r1"] })).ok).toBe(true);

    const refused = await store.write("s", {
      requests: [{ ...settled, requestId: "r2", resolution: { action: "accept" as const, at: "now" } }],
      events: [{ type: "session.created" }],
      session: { status: "running" },
      requireOpen: ["r2", "r1"],
    });
    expect(refused).toEqual({ ok: false, reason: "settled", requests: [settled] });
    expect(await store.readEvents("s", 0)).toEqual([]);
    expect((await store.getSession("s"))?.status).toBe("idle");
    expect((await store.getRequest("s", "r2"))?.state).toBe("open");

    expect(await store.write("s", { session: { status: "running" }, requireStatus: ["waiting"] })).toEqual({
      ok: false,
      reason: "status",
      status: "idle",
    });
  });

  it("applies writes made at once in order, each whole or not at all, whatever the others do", async () => {
    const store = open();
    await store.createSession(session("a"));
    await store.createSession(session("b"));
    const writes = [
      store.write("a", { events: [{ type: "session.created" }] }),
      store.write("b", { session: { status: "running" }, requireStatus: ["waiting"] }),
      store.write("a", {
        events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
        session: { status: "running" },
      }),
      store.write("gone", { events: [{ type: "session.created" }] }),
      store.write("b", { events: [{ type: "session.created" }] }),
    ];
    expect((await Promise.all(writes)).map((result) => (result.ok ? "ok" : result.reason))).toEqual([
      "ok",
      "status",
      "ok",
      "not_found",
      "ok",
    ]);
    expect((await store.readEvents("a", 0)).map((event) => [event.seq, event.type])).toEqual([
      [1, "session.created"],
      [2, "turn.started"],
    ]);
    expect((await store.readEvents("b", 0)).map((event) => event.seq)).toEqual([1]);
    expect((await store.getSession("b"))?.status).toBe("idle");
  });

  it("applies many writes made at once to one session in the order they were made", async () => {
    const store = open();
    await store.createSession(session("a"));
    await store.write("a", { events: [{ type: "message.started", messageId: "m", role: "assistant" }] });
    const deltas = Array.from({ length: 20 }, (_, index) => `${index} `);
    const written = await Promise.all(
      deltas.map((delta) => store.write("a", { events: [{ type: "text.delta", messageId: "m", delta }] })),
    );
    expect(written.every((result) => result.ok)).toBe(true);
    const events = await store.readEvents("a", 1);
    expect(events.map((event) => (event.type === "text.delta" ? event.delta : event.type))).toEqual(deltas);
    expect((await store.readSnapshot("a"))?.messages[0]?.parts).toEqual([{ type: "text", text: deltas.join("") }]);
  });

  it("finds sessions to recover and requests that expired", async () => {
    const store = open();
    for (const id of ["idle", "running", "resuming", "waiting"]) {
      await store.createSession(session(id));
      if (id !== "idle") await store.write(id, { session: { status: id as "running" } });
    }
    expect((await store.listSessionsToRecover()).sort()).toEqual(["resuming", "running"]);

    await store.write("waiting", { requests: [request("late", 1000), request("later", 5000), request("never")] });
    expect(await store.nextExpiry()).toBe(1000);
    expect(await store.listExpiredRequests(2000)).toEqual([{ sessionId: "waiting", requestId: "late" }]);
    await store.write("waiting", { requests: [{ ...request("late", 1000), state: "settled" }] });
    expect(await store.nextExpiry()).toBe(5000);
    expect(await store.listExpiredRequests(2000)).toEqual([]);
  });

  it("records each session's owner and lists, counts and pages one owner's sessions", async () => {
    const store = open();
    const times = ["2026-11-22T10:00:00.000Z", "2026-11-22T11:00:00.000Z", "2026-11-22T11:00:00.000Z"];
    for (const [index, id] of ["a1", "a2", "a3", "a4", "a5"].entries()) {
      await store.createSession(session(id, times[index % 3], "alice"));
    }
    await store.createSession(session("b1", "2026-11-22T12:00:00.000Z", "bob"));
    await store.createSession(session("x1", "2026-11-22T13:00:00.000Z"));
    expect((await store.getSession("a1"))?.owner).toBe("alice");
    expect((await store.getSession("x1"))?.owner).toBeUndefined();
    expect(await store.countSessions("alice")).toBe(5);
    expect(await store.countSessions("carol")).toBe(0);

    const ids = (list: { sessionId: string }[]) => list.map((summary) => summary.sessionId);
    // Newest first; equal times ordered by id, descending, so the order is total.
    const all = ids(await store.listSessions({ owner: "alice" }));
    expect(all).toEqual(["a5", "a3", "a2", "a4", "a1"]);
    const pages: string[][] = [];
    let after: { createdAt: string; sessionId: string } | undefined;
    for (;;) {
      const page = await store.listSessions({ owner: "alice", limit: 2, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      pages.push(ids(page));
      after = page.at(-1)!;
    }
    expect(pages).toEqual([["a5", "a3"], ["a2", "a4"], ["a1"]]);
    expect(ids(await store.listSessions({ owner: "bob" }))).toEqual(["b1"]);
    expect(ids(await store.listSessions({ limit: 3 }))).toEqual(["x1", "b1", "a5"]);
  });

  it("deletes a session with everything in it, and nothing of another", async () => {
    const store = open();
    for (const id of ["gone", "kept"]) {
      await store.createSession(session(id, undefined, "alice"));
      await store.write(id, {
        events: [{ type: "session.created" }],
        transcript: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        toolCalls: [
          { toolCallId: "c", turnId: "turn_1", step: 1, index: 0, toolName: "t", input: {}, state: "parked" },
        ],
        requests: [request("r", 1000)],
      });
    }
    expect(await store.deleteSession("gone")).toBe(true);
    expect(await store.deleteSession("gone")).toBe(false);
    expect(await store.getSession("gone")).toBeUndefined();
    expect(await store.readEvents("gone", 0)).toEqual([]);
    expect(await store.readTranscript("gone")).toEqual([]);
    expect(await store.getToolCalls("gone", "turn_1", 1)).toEqual([]);
    expect(await store.getRequest("gone", "r")).toBeUndefined();
    expect(await store.listExpiredRequests(2000)).toEqual([{ sessionId: "kept", requestId: "r" }]);
    expect((await store.listSessions()).map((summary) => summary.sessionId)).toEqual(["kept"]);
    expect(await store.countSessions("alice")).toBe(1);
    expect(await store.readEvents("kept", 0)).toHaveLength(1);
  });

  it("keeps each session's last activity and finds the sessions idle since a time, oldest first", async () => {
    const store = open();
    await store.createSession(session("old", "2020-01-01T00:00:00.000Z"));
    await store.createSession(session("older", "2019-01-01T00:00:00.000Z"));
    await store.createSession(session("active", "2020-01-01T00:00:00.000Z"));
    expect((await store.getSession("old"))?.updatedAt).toBe("2020-01-01T00:00:00.000Z");
    const written = await store.write("active", { events: [{ type: "session.created" }] });
    const at = written.ok ? written.events[0]!.at : "";
    expect((await store.getSession("active"))?.updatedAt).toBe(at);
    await store.write("old", { session: { title: "renamed" } });
    expect((await store.getSession("old"))?.updatedAt).not.toBe("2020-01-01T00:00:00.000Z");
    expect(await store.listIdleSessions("2021-01-01T00:00:00.000Z")).toEqual(["older"]);
    const soon = new Date(Date.now() + 60_000).toISOString();
    expect((await store.listIdleSessions(soon)).sort()).toEqual(["active", "old", "older"]);
    expect(await store.listIdleSessions(soon, 1)).toEqual(["older"]);
    expect((await store.listSessions()).find((summary) => summary.sessionId === "active")?.updatedAt).toBe(at);
  });

  it("returns copies: changing what it returned does not change what it holds", async () => {
    const store = open();
    await store.createSession(session("s"));
    await store.write("s", { requests: [request("r")] });
    const got = await store.getRequest("s", "r");
    got!.state = "settled";
    expect((await store.getRequest("s", "r"))?.state).toBe("open");
  });
});

describe("sqliteStore on disk", () => {
  it("migrates a file written before owners: its sessions keep their data, have no owner and their last activity", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir.path, "old.sqlite");
    const old = new Database(path);
    old.exec(`
      CREATE TABLE sessions (session_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
        last_seq INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)) WITHOUT ROWID;`);
    const record = { ...session("legacy", "2025-01-01T00:00:00.000Z"), title: "old chat" };
    old
      .prepare("INSERT INTO sessions VALUES (?, ?, ?, 1, ?)")
      .run("legacy", record.createdAt, "idle", JSON.stringify(record));
    const event = { type: "session.created", seq: 1, sessionId: "legacy", at: "2025-02-01T00:00:00.000Z" };
    old.prepare("INSERT INTO events VALUES (?, 1, ?)").run("legacy", JSON.stringify(event));
    old.close();

    const store = sqliteStore(path);
    stores.push(store);
    expect(await store.getSession("legacy")).toMatchObject({
      sessionId: "legacy",
      title: "old chat",
      updatedAt: "2025-02-01T00:00:00.000Z",
      lastSeq: 1,
    });
    expect((await store.getSession("legacy"))?.owner).toBeUndefined();
    expect(await store.readEvents("legacy", 0)).toEqual([event]);
    expect(await store.listSessions({ owner: "anyone" })).toEqual([]);
    expect(await store.listIdleSessions("2025-03-01T00:00:00.000Z")).toEqual(["legacy"]);
    await store.close();
    // Opening it again applies nothing twice.
    const again = sqliteStore(path);
    stores.push(again);
    expect((await again.getSession("legacy"))?.updatedAt).toBe("2025-02-01T00:00:00.000Z");
  });

  it("fills the projection of a file written before it, from each session's log, and keeps every row", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // A session written by this version, copied into a file of the previous schema (version 1).
    const source = sqliteStore(join(dir.path, "new.sqlite"));
    await source.createSession(session("s", "2026-01-01T00:00:00.000Z", "ada"));
    const ops = fc.sample(projectionOps, { numRuns: 1, seed: 7 })[0]!;
    for (const batch of batchesOf([...ops, { kind: "start" }, { kind: "delta", text: "hi", reasoning: false }])) {
      await source.write("s", batch);
    }
    const call = {
      toolCallId: "c",
      turnId: "t9",
      step: 1,
      index: 0,
      toolName: "t",
      input: {},
      state: "parked" as const,
    };
    await source.write("s", {
      toolCalls: [call],
      requests: [request("r9", 4_102_444_800_000)],
      transcript: [{ role: "user", content: [{ type: "text", text: "kept" }] }],
    });
    const events = await source.readEvents("s", 0);
    const fold = events.reduce(reduceSession, emptySnapshot("s"));
    const requests = await source.getOpenRequests("s");
    await source.close();
    const old = new Database(join(dir.path, "old.sqlite"));
    old.exec(`
      CREATE TABLE sessions (session_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
        last_seq INTEGER NOT NULL, body TEXT NOT NULL, owner TEXT, updated_at TEXT);
      CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
      CREATE TABLE transcript (session_id TEXT NOT NULL, idx INTEGER NOT NULL, message TEXT NOT NULL,
        PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
      CREATE TABLE tool_calls (session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, turn_id TEXT NOT NULL,
        body TEXT NOT NULL, PRIMARY KEY (session_id, tool_call_id)) WITHOUT ROWID;
      CREATE TABLE requests (session_id TEXT NOT NULL, request_id TEXT NOT NULL, state TEXT NOT NULL,
        expires_at INTEGER, body TEXT NOT NULL, PRIMARY KEY (session_id, request_id)) WITHOUT ROWID;
      ATTACH DATABASE '${join(dir.path, "new.sqlite")}' AS new;
      INSERT INTO sessions SELECT session_id, created_at, status, last_seq, body, owner, updated_at FROM new.sessions;
      INSERT INTO events SELECT session_id, seq, body FROM new.events;
      INSERT INTO tool_calls SELECT session_id, tool_call_id, turn_id, body FROM new.tool_calls;
      INSERT INTO requests SELECT session_id, request_id, state, expires_at, body FROM new.requests;
      INSERT INTO transcript SELECT session_id, idx, message FROM new.transcript;
      PRAGMA user_version = 1;`);
    old.close();

    const store = sqliteStore(join(dir.path, "old.sqlite"));
    stores.push(store);
    expect(fold.messages.length).toBeGreaterThan(0);
    expect(await store.readSnapshot("s", { limit: 1_000 })).toEqual(fold);
    // The tables rebuilt in rowid order (migration 3) keep every row.
    expect(await store.readEvents("s", 0)).toEqual(events);
    expect(await store.getOpenRequests("s")).toEqual(requests);
    expect(await store.getToolCalls("s", "t9", 1)).toEqual([call]);
    expect(await store.nextExpiry()).toBe(4_102_444_800_000);
    expect((await store.readTranscript("s")).at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "kept" }],
    });
    expect(await store.streamingMessageIds("s")).toEqual(
      fold.messages.filter((message) => message.status === "streaming").map((message) => message.id),
    );
    // Later writes extend it as in any file.
    await store.write("s", { events: [{ type: "turn.started", turnId: "t2", cause: "message" }] });
    expect((await store.readSnapshot("s"))?.status).toBe("running");
  });

  it("fails only the write that throws when writes share a transaction, and commits the rest", async () => {
    const store = sqliteOnDisk();
    await store.createSession(session("a"));
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const [first, failing, last] = await Promise.allSettled([
      store.write("a", { events: [{ type: "session.created" }] }),
      store.write("a", {
        events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
        transcript: [circular as never],
      }),
      store.write("a", { events: [{ type: "turn.started", turnId: "t2", cause: "message" }] }),
    ]);
    expect(first.status).toBe("fulfilled");
    expect(failing).toMatchObject({ status: "rejected", reason: expect.any(TypeError) });
    expect(last.status).toBe("fulfilled");
    expect((await store.readEvents("a", 0)).map((event) => [event.seq, "turnId" in event ? event.turnId : ""])).toEqual(
      [
        [1, ""],
        [2, "t2"],
      ],
    );
    expect(await store.getSession("a")).toMatchObject({ transcriptLength: 0, lastSeq: 2 });
  });

  it("checkpoints the WAL while writes go on, so the WAL starts over instead of growing", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir.path, "busy.sqlite");
    const store = sqliteStore(path);
    stores.push(store);
    await store.createSession(session("s"));
    // 20 KB of text per commit: without checkpoints, the WAL grows by more than that each time.
    // The worker starts a checkpoint once the WAL passes 4 MiB, and its thread may take a
    // while to start on a busy machine, so the loop gives it time (a timer between commits)
    // and goes on until the WAL starts over: its header's salt changes then (the file itself
    // is written over, not cut back). Past 64 MiB the store would stop its commits until the
    // worker caught up: a WAL that starts over below that did so in the worker's stride.
    const delta = "x".repeat(20_000);
    const salt = () => {
      const fd = openSync(`${path}-wal`, "r");
      try {
        const header = Buffer.alloc(24);
        readSync(fd, header, 0, 24, 0);
        return header.subarray(16, 24).toString("hex");
      } finally {
        closeSync(fd);
      }
    };
    let first: string | undefined;
    let largest = 0;
    let commits = 0;
    let restarted = false;
    while (!restarted && commits < 2_500) {
      const messageId = `m${commits}`;
      await store.write("s", {
        events: [
          { type: "message.started", messageId, role: "assistant" },
          { type: "text.delta", messageId, delta },
          { type: "message.completed", messageId },
        ],
      });
      commits += 1;
      first ??= salt();
      restarted = salt() !== first;
      largest = Math.max(largest, statSync(`${path}-wal`).size);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(restarted).toBe(true);
    expect(largest).toBeLessThan(64 * 1024 * 1024);
    expect((await store.readEvents("s", 0, 10_000)).length).toBe(3 * commits);
  });

  it("reads each session right when more sessions are in use than it keeps in memory", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = sqliteStore(join(dir.path, "many.sqlite"));
    stores.push(store);
    // More than the 2,000 session rows the store caches: the first ones are read from the file again.
    const ids = Array.from({ length: 2_100 }, (_, index) => `s${index}`);
    for (const id of ids) await store.createSession(session(id));
    await Promise.all(ids.map((id) => store.write(id, { events: [{ type: "session.created" }] })));
    await Promise.all(
      ids.map((id, index) =>
        store.write(id, {
          events: [{ type: "turn.started", turnId: `t${index}`, cause: "message" }],
          session: { status: "running", turnId: `t${index}` },
        }),
      ),
    );
    for (const [index, id] of ids.entries()) {
      const read = await store.getSession(id);
      expect(read).toMatchObject({ status: "running", turnId: `t${index}`, lastSeq: 2 });
    }
    // A read's copy is the caller's: changing it changes nothing stored.
    const copy = (await store.getSession("s0"))!;
    copy.status = "idle";
    expect((await store.getSession("s0"))?.status).toBe("running");
  });

  it("refuses a file a newer version migrated, and says how to go back", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = join(dir.path, "newer.sqlite");
    await sqliteStore(file).close();
    const db = new Database(file);
    db.pragma("user_version = 99");
    db.close();
    expect(() => sqliteStore(file)).toThrow(
      `sqliteStore: ${file} is at version 99, newer than this @hitl-kit/server knows`,
    );
  });

  it("keeps everything across a reopen of the file", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir.path, "again.sqlite");
    const first = sqliteStore(path);
    await first.createSession(session("s"));
    await first.write("s", {
      events: [{ type: "session.created" }],
      requests: [request("r")],
      session: { status: "waiting" },
    });
    await first.close();
    const second = sqliteStore(path);
    stores.push(second);
    expect((await second.readEvents("s", 0)).map((event) => event.type)).toEqual(["session.created"]);
    expect((await second.getOpenRequests("s")).map((record) => record.requestId)).toEqual(["r"]);
    expect((await second.getSession("s"))?.status).toBe("waiting");
  });
});
