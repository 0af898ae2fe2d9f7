import { join } from "node:path";
import { defineTool } from "@hitl-kit/protocol";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRuntime, implement, type SessionStore, StoreUnavailable } from "../src/index.js";
import { scriptedModel } from "../src/models/scripted-model.js";
import { idleSession } from "../src/store/records.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, startServer, tempDir } from "./harness.js";

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) dir.cleanup();
});

function databaseFile(): string {
  const dir = tempDir();
  dirs.push(dir);
  return join(dir.path, "hitl.sqlite");
}

/**
 * Fails the next `times` commits of SQLite transactions in this thread as a full disk does
 * (`SQLITE_FULL`, thrown by the COMMIT; better-sqlite3 then rolls the transaction back).
 * Nothing here can fill a real disk: the error is SQLite's own class and code.
 */
function failCommits(times: number, code = "SQLITE_FULL", message = "database or disk is full") {
  const probe = new Database(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as { run: (...args: unknown[]) => unknown };
  probe.close();
  const run = statement.run;
  const fault = { left: times };
  vi.spyOn(statement, "run").mockImplementation(function (this: { source: string }, ...args: unknown[]) {
    if (this.source === "COMMIT" && fault.left > 0) {
      fault.left -= 1;
      throw new Database.SqliteError(message, code);
    }
    return run.apply(this, args);
  });
  return fault;
}

function recordingLogger() {
  return { warn: vi.fn(), error: vi.fn() };
}

const refund = defineTool({ name: "refund", description: "Refunds.", inputSchema: z.object({}) });

describe("an SQLite store that cannot write its file for a while", () => {
  it("reports a full disk as StoreUnavailable naming the file, and keeps nothing of the failed write", async () => {
    const file = databaseFile();
    const store = sqliteStore(file);
    try {
      await store.createSession(idleSession("s"));
      await store.write("s", { events: [{ type: "session.created" }] });
      failCommits(1);
      const failed = store.write("s", {
        events: [{ type: "turn.started", turnId: "t1", cause: "message" }],
        session: { status: "running", turnId: "t1" },
      });
      await expect(failed).rejects.toThrow(StoreUnavailable);
      await expect(failed).rejects.toThrow(`sqliteStore: the disk holding ${file} is full`);
      // The session's cached row is not ahead of the file: the next write follows the last one that committed.
      expect(await store.getSession("s")).toMatchObject({ status: "idle", lastSeq: 1 });
      expect((await store.readEvents("s", 0)).map((event) => event.type)).toEqual(["session.created"]);
      const result = await store.write("s", {
        events: [{ type: "turn.started", turnId: "t2", cause: "message" }],
        session: { status: "running", turnId: "t2" },
      });
      expect(result).toMatchObject({ ok: true, events: [{ seq: 2, turnId: "t2" }] });
      expect(await store.getSession("s")).toMatchObject({ status: "running", turnId: "t2", lastSeq: 2 });
    } finally {
      await store.close();
    }
  });

  it("fails every write of a group commit with the full disk, once, not each again alone", async () => {
    const file = databaseFile();
    const store = sqliteStore(file);
    try {
      const ids = ["a", "b", "c"];
      for (const id of ids) await store.createSession(idleSession(id));
      const fault = failCommits(ids.length + 1);
      const writes = ids.map((id) => store.write(id, { events: [{ type: "session.created" }] }));
      for (const write of writes) await expect(write).rejects.toThrow(StoreUnavailable);
      expect(fault.left).toBe(ids.length); // one commit tried, for the three writes together
      vi.restoreAllMocks();
      for (const id of ids) {
        expect(await store.getSession(id)).toMatchObject({ lastSeq: 0 });
        expect(await store.write(id, { events: [{ type: "session.created" }] })).toMatchObject({ ok: true });
      }
    } finally {
      await store.close();
    }
  });

  it("reports a write lock another program holds as StoreUnavailable, and writes once it lets go", async () => {
    const file = databaseFile();
    const store = sqliteStore(file);
    const shell = new Database(file); // a sqlite3 shell, say
    try {
      await store.createSession(idleSession("s"));
      shell.exec("BEGIN IMMEDIATE");
      const refused = store.write("s", { events: [{ type: "session.created" }] });
      await expect(refused).rejects.toThrow(StoreUnavailable);
      await expect(refused).rejects.toThrow(`sqliteStore: another program holds the write lock on ${file}`);
      shell.exec("ROLLBACK");
      expect(await store.write("s", { events: [{ type: "session.created" }] })).toMatchObject({ ok: true });
    } finally {
      shell.close();
      await store.close();
    }
  });

  it("answers 503 unavailable while the disk is full, logged once naming the file, and takes the message once there is room", async () => {
    const file = databaseFile();
    const logger = recordingLogger();
    const server = startServer(scriptedModel([{ text: "Hello." }]), { store: sqliteStore(file), logger });
    try {
      const sessionId = await server.session();
      failCommits(Number.POSITIVE_INFINITY);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const refused = await server.call("POST", `/sessions/${sessionId}/messages`, { text: "hi" });
        expect(refused.status).toBe(503);
        expect(refused.body).toMatchObject({ error: { code: "unavailable" } });
      }
      expect(logger.error).not.toHaveBeenCalled();
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn.mock.calls[0]![0]).toContain(`sqliteStore: the disk holding ${file} is full`);
      vi.restoreAllMocks();
      expect((await server.call("POST", `/sessions/${sessionId}/messages`, { text: "hi" })).status).toBe(202);
      await server.runtime.idle();
      expect((await server.snapshot(sessionId)).status).toBe("idle");
    } finally {
      await server.close();
    }
  });

  for (const when of ["while the tool's result is written", "while the model's reply is written"] as const) {
    it(`goes on with a turn whose writes fail with SQLITE_FULL a few times ${when}: one result per call, not stuck`, async () => {
      const file = databaseFile();
      const logger = recordingLogger();
      const store: SessionStore = sqliteStore(file);
      let runs = 0;
      const tool = implement(refund, async () => {
        runs += 1;
        if (when === "while the tool's result is written") failCommits(3);
        return { refunded: 1500 };
      });
      const runtime = createAgentRuntime({
        model: scriptedModel([
          { text: "Refunding.", toolCalls: [{ toolName: "refund", input: {} }] },
          { text: "Done: refunded." },
        ]),
        tools: [tool],
        store,
        logger,
      });
      try {
        const { sessionId } = await runtime.createSession();
        await runtime.sendMessage(sessionId, "refund it");
        if (when === "while the model's reply is written") failCommits(3);
        await vi.waitFor(async () => expect((await store.getSession(sessionId))?.status).toBe("idle"), {
          timeout: 10_000,
        });
        const events = await store.readEvents(sessionId, 0);
        expect(checkOneResultPerCall(events)).toEqual([]);
        expect(events.filter((event) => event.type === "tool.result")).toEqual([
          expect.objectContaining({ outcome: "ok", output: { refunded: 1500 } }),
        ]);
        expect(events.filter((event) => event.type === "turn.failed")).toEqual([]);
        expect(events.at(-1)?.type).toBe("turn.completed");
        expect(runs).toBe(1);
        expect(logger.error).not.toHaveBeenCalled();
        expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining(`the disk holding ${file} is full`));
        // Not stuck: the next message starts a turn at once.
        await runtime.sendMessage(sessionId, "thanks");
      } finally {
        await runtime.close();
        await store.close();
      }
    });
  }
});
