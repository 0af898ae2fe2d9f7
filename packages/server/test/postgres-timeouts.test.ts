import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime, type SessionStore, scriptedModel } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { quiet } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

const postgres = throwawayDatabase("timeouts");

const opened: { runtime: AgentRuntime; store: SessionStore }[] = [];
afterEach(async () => {
  for (const { runtime, store } of opened.splice(0)) {
    await runtime.close();
    await store.close();
  }
});

/** The advisory-lock namespace of session locks (postgres-session-lock.ts). */
const LOCK_SPACE = 0x48495431;

describe.skipIf(!postgresAvailable)("a database that enforces statement_timeout", () => {
  it("answers a request whose session lock waits past it as the store unavailable for now, and takes it once the lock is free", async () => {
    const url = `${postgres.url()}?options=${encodeURIComponent("-c statement_timeout=200")}`;
    const store = postgresStore(url, { schema: postgres.schema() });
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hi." }]), store, logger: quiet });
    opened.push({ runtime, store });
    await runtime.ready;
    const { sessionId } = await runtime.createSession();

    // Another instance's long section holds the session's lock.
    const other = new pg.Client({ connectionString: postgres.url() });
    await other.connect();
    try {
      await other.query("SELECT pg_advisory_lock($1, hashtext($2))", [LOCK_SPACE, sessionId]);
      await expect(runtime.sendMessage(sessionId, "hello")).rejects.toMatchObject({ name: "StoreUnavailable" });
      await other.query("SELECT pg_advisory_unlock($1, hashtext($2))", [LOCK_SPACE, sessionId]);
    } finally {
      await other.end();
    }
    await runtime.sendMessage(sessionId, "hello");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("idle");
  });
});
