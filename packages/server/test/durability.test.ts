import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptySnapshot, type Message, reduceSession, type SessionSnapshot } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { bundledEntry } from "./bundled-entry.js";
import { checkOneResultPerCall, readSse, tempDir } from "./harness.js";

const children: ChildProcess[] = [];
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) dir.cleanup();
});

type ServerProcess = Awaited<ReturnType<typeof startProcess>>;

/** The user a process runs as to be bound by file modes: `nobody` when the tests run as root, else this one. */
function unprivilegedUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(execFileSync("id", ["-u", "nobody"])), gid: Number(execFileSync("id", ["-g", "nobody"])) };
}

/**
 * Whether that user can run the project's code: a checkout in a folder only root may enter
 * (`mktemp -d` makes one) cannot be read by `nobody`, and the file-mode test is skipped there.
 */
const unprivilegedCanRun =
  spawnSync(process.execPath, ["--input-type=module", "-e", 'await import("better-sqlite3")'], {
    cwd: import.meta.dirname,
    ...unprivilegedUser(),
  }).status === 0;
if (!unprivilegedCanRun) {
  console.warn(
    "durability.test: SKIPPING the read-only-file test: as root it runs its server as nobody, who cannot read this checkout (a folder only root may enter).",
  );
}

/**
 * Starts processes/durable-server.ts in a new Node process on the given SQLite file; with
 * `unprivileged`, as a user file modes bind (`nobody`, when the tests run as root: the
 * process itself, so that killing the child kills the server).
 */
async function startProcess(db: string, env: Record<string, string> = {}, { unprivileged = false } = {}) {
  const script = await bundledEntry(join(import.meta.dirname, "processes/durable-server.ts"));
  const user = unprivileged ? unprivilegedUser() : {};
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, HITL_DB: db, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, signal) => resolve(signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk) => resolve(`${String(chunk).trim()}/api/agent`));
    void exited.then(() => reject(new Error(`the server exited: ${stderr}`)));
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const init =
      body === undefined
        ? { method }
        : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
    const response = await fetch(`${url}${path}`, init);
    return { status: response.status, body: await response.json() };
  };
  /** The whole event log, read through the SSE route. */
  const events = async (id: string) => {
    const { lastSeq } = (await api("GET", `/sessions/${id}`)).body as SessionSnapshot;
    return readSse(await fetch(`${url}/sessions/${id}/events?after=0`), id, (read) => read.at(-1)?.seq === lastSeq);
  };
  return { child, api, events, exited };
}

async function waitForStatus(server: ServerProcess, id: string, status: string): Promise<SessionSnapshot> {
  let snapshot: SessionSnapshot | undefined;
  await vi.waitFor(
    async () => {
      snapshot = (await server.api("GET", `/sessions/${id}`)).body;
      expect(snapshot?.status).toBe(status);
    },
    { timeout: 10_000, interval: 50 },
  );
  return snapshot!;
}

function database() {
  const dir = tempDir();
  dirs.push(dir);
  return join(dir.path, "hitl.sqlite");
}

describe("durability across real processes", () => {
  it("resumes a turn parked before a SIGKILL: a new process takes the answer and completes it", async () => {
    const db = database();
    const first = await startProcess(db);
    const id = (await first.api("POST", "/sessions", {})).body.sessionId;
    await first.api("POST", `/sessions/${id}/messages`, { text: "publish it" });
    const parked = await waitForStatus(first, id, "waiting");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    const second = await startProcess(db);
    expect(((await second.api("GET", `/sessions/${id}`)).body as SessionSnapshot).pending).toEqual(parked.pending);
    await second.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: parked.pending[0]!.requestId, action: "accept" }],
    });
    const next = await waitForStatus(second, id, "waiting");
    expect(next.pending[0]?.toolName).toBe("pick_template");
    await second.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: next.pending[0]!.requestId, action: "accept", value: { templateId: "b" } }],
    });
    const done = await waitForStatus(second, id, "idle");
    expect(done.messages.at(-1)?.parts).toEqual([{ type: "text", text: "All done." }]);
    expect(checkOneResultPerCall(await second.events(id))).toEqual([]);
  }, 30_000);

  it("after a SIGKILL mid-stream, streams the step again and abandons the cut-off message", async () => {
    const db = database();
    const first = await startProcess(db, { HITL_CRASH: "mid-stream" });
    const id = (await first.api("POST", "/sessions", {})).body.sessionId;
    const sent = first.api("POST", `/sessions/${id}/messages`, { text: "publish it" });
    expect(await first.exited).toBe("SIGKILL");
    await sent.catch(() => {}); // the answer may or may not have left before the process died

    const second = await startProcess(db);
    const parked = await waitForStatus(second, id, "waiting");
    const assistant = parked.messages.filter((message) => message.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(assistant[0]?.parts[0]).toEqual({ type: "text", text: "Publishing needs your approval." });

    const events = await second.events(id);
    const cutOff = events.find((event) => event.type === "message.abandoned");
    const cutOffText = events.flatMap((event) =>
      event.type === "text.delta" && cutOff?.type === "message.abandoned" && event.messageId === cutOff.messageId
        ? [event.delta]
        : [],
    );
    expect(cutOffText.join("")).toBe("Publishing needs ");
    // What a client folds from the log is what the snapshot says: the cut-off text once, nowhere.
    expect(events.reduce(reduceSession, emptySnapshot(id)).messages).toEqual(parked.messages);
    // A client from before message.abandoned skips it and sees the cut-off message complete, not streaming.
    const older = events.filter((event) => event.type !== "message.abandoned").reduce(reduceSession, emptySnapshot(id));
    expect(older.messages.filter((message) => message.status === "streaming")).toEqual([]);

    // The turn goes on from a transcript that never held the cut-off text.
    await second.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: parked.pending[0]!.requestId, action: "accept" }],
    });
    const next = await waitForStatus(second, id, "waiting");
    await second.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: next.pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    const done = await waitForStatus(second, id, "idle");
    expect(done.messages.map((message) => message.parts.find((part) => part.type === "text"))).toEqual([
      { type: "text", text: "publish it" },
      { type: "text", text: "Publishing needs your approval." },
      { type: "text", text: "Pick a template too." },
      { type: "text", text: "All done." },
    ]);
    expect(checkOneResultPerCall(await second.events(id))).toEqual([]);
  }, 30_000);

  /**
   * Sends `text` to a process that dies once it has kept a Stop (before it stops the turn or
   * answers), pressed when the last message passes `underWay`; answers the next process's
   * view of the session once it is idle.
   */
  async function stoppedThroughKill(env: Record<string, string>, text: string, underWay: (last?: Message) => void) {
    const db = database();
    const first = await startProcess(db, { ...env, HITL_CRASH: "after-stop" });
    const id = (await first.api("POST", "/sessions", {})).body.sessionId;
    await first.api("POST", `/sessions/${id}/messages`, { text });
    await vi.waitFor(
      async () => underWay(((await first.api("GET", `/sessions/${id}`)).body as SessionSnapshot).messages.at(-1)),
      { timeout: 10_000, interval: 20 },
    );
    await expect(first.api("POST", `/sessions/${id}/cancel`, {})).rejects.toThrow();
    expect(await first.exited).toBe("SIGKILL");
    const second = await startProcess(db, env);
    const stopped = await waitForStatus(second, id, "idle");
    const events = await second.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(checkOneResultPerCall(events)).toEqual([]);
    return { stopped, events };
  }

  it("keeps a Stop through a SIGKILL before the turn stopped: the next process ends the turn, its cut-off message kept", async () => {
    const { stopped, events } = await stoppedThroughKill({ HITL_CHUNK_DELAY_MS: "100" }, "publish it", (last) =>
      expect(last).toMatchObject({ role: "assistant", status: "streaming" }),
    );
    expect(events.filter((event) => event.type === "message.abandoned" || event.type === "tool.called")).toEqual([]);
    // The reply stays as the Stop cut it: complete, a beginning of what the model was writing.
    const reply = stopped.messages.at(-1)!;
    expect(reply).toMatchObject({ role: "assistant", status: "complete" });
    const text = reply.parts.find((part) => part.type === "text");
    expect("Publishing needs your approval.".startsWith(text?.type === "text" ? text.text : "?")).toBe(true);
  }, 30_000);

  it("keeps a Stop through a SIGKILL while a tool runs: the call's one result says it may have completed", async () => {
    const { events } = await stoppedThroughKill({ HITL_SCRIPT: "slow-tool" }, "report", (last) =>
      expect(last?.parts).toContainEqual(expect.objectContaining({ type: "tool", state: "running" })),
    );
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({
        outcome: "cancelled",
        output: {
          reason: expect.stringMatching(/stopped the turn while this tool ran.*may or may not have completed/),
        },
      }),
    ]);
  }, 30_000);

  it("finds a settled-but-not-resumed turn after a SIGKILL and resumes it on start", async () => {
    const db = database();
    const first = await startProcess(db, { HITL_CRASH: "after-settle" });
    const id = (await first.api("POST", "/sessions", {})).body.sessionId;
    await first.api("POST", `/sessions/${id}/messages`, { text: "publish it" });
    const parked = await waitForStatus(first, id, "waiting");
    const answer = first.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: parked.pending[0]!.requestId, action: "accept" }],
    });
    await expect(answer).rejects.toThrow(); // it died after settling, before it could answer
    expect(await first.exited).toBe("SIGKILL");

    const second = await startProcess(db);
    const resumed = await waitForStatus(second, id, "waiting");
    expect(resumed.pending.map((request) => request.toolName)).toEqual(["pick_template"]);
    await second.api("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: resumed.pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    await waitForStatus(second, id, "idle");
    const events = await second.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { url: "https://posters.example/Spring" } }),
      expect.objectContaining({ outcome: "ok", output: { templateId: "a" } }),
    ]);
  }, 30_000);
});

describe("one SQLite file, one process", () => {
  it("refuses a second process on the file at start, and lets one in once the holder is gone", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = join(dir.path, "hitl.sqlite");
    const first = await startProcess(db);
    const { body } = await first.api("POST", "/sessions", {});
    expect(body.sessionId).toMatch(/^ses_/);

    await expect(startProcess(db)).rejects.toThrow(
      `another hitl-kit process holds ${db}; use postgresStore to run several (a build or a dev server's worker`,
    );
    // The holder still serves: the refused process wrote nothing.
    expect((await first.api("GET", `/sessions/${body.sessionId}`)).status).toBe(200);

    first.child.kill("SIGKILL");
    await first.exited;
    const second = await startProcess(db);
    expect((await second.api("GET", `/sessions/${body.sessionId}`)).body.sessionId).toBe(body.sessionId);
  }, 30_000);

  it("tells a second store in the same process so at once, and lets one in once the first is closed", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = join(dir.path, "hitl.sqlite");
    const first = sqliteStore(db);
    // A dev server that runs the module again opens the same file through another path.
    expect(() => sqliteStore(join(dir.path, ".", "hitl.sqlite"))).toThrow(
      /this process already has a sqliteStore open on .*hitl\.sqlite: close that store first/,
    );
    await first.close();
    await sqliteStore(db).close();
  });

  it.skipIf(!unprivilegedCanRun)(
    "refuses at start a file it may not write, naming it, rather than failing every write later",
    async () => {
      const dir = tempDir();
      dirs.push(dir);
      const db = join(dir.path, "hitl.sqlite");
      await sqliteStore(db).close();
      // The folder stays writable (the lock file, the WAL); the file itself is read-only.
      chmodSync(dir.path, 0o777);
      chmodSync(db, 0o444);
      await expect(startProcess(db, {}, { unprivileged: true })).rejects.toThrow(
        `sqliteStore: ${db} is read-only (SQLITE_READONLY: attempt to write a readonly database)`,
      );
      // A folder it may not write in: the lock file cannot be made, which is said just as plainly.
      rmSync(`${db}.lock`, { force: true });
      chmodSync(dir.path, 0o555);
      try {
        await expect(startProcess(db, {}, { unprivileged: true })).rejects.toThrow(
          `sqliteStore: ${db}.lock cannot be opened or created (SQLITE_CANTOPEN: unable to open database file): check that its folder exists and that this process may write in it`,
        );
      } finally {
        chmodSync(dir.path, 0o755); // so the folder can be removed
      }
    },
    30_000,
  );

  it("leaves a file it could not open unclaimed", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = join(dir.path, "hitl.sqlite");
    writeFileSync(db, "not a database, but long enough for SQLite to read its header and refuse it".repeat(4));
    expect(() => sqliteStore(db)).toThrow(/not a database/);
    writeFileSync(db, "");
    await sqliteStore(db).close();
  });
});
