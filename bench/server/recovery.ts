import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime, scriptedModel } from "@hitl-kit/server";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { now } from "../timer.js";
import { pickTemplate } from "./fixture.js";

const sessions = 10_000;

/**
 * 10,000 sessions left mid-stream by a crash (a turn running, an assistant message cut off),
 * then a new runtime on the same SQLite file: how long until every one is picked up again
 * (`ready`: its cut-off message abandoned and its turn driven again), and until every turn
 * has parked once more.
 */
export async function measureRecovery() {
  const dir = mkdtempSync(join(tmpdir(), "hitl-recovery-"));
  const path = join(dir, "recovery.sqlite");
  const before = sqliteStore(path);
  for (let index = 0; index < sessions; index++) {
    const sessionId = `ses_${index}`;
    await before.createSession({
      sessionId,
      owner: "bench",
      createdAt: new Date().toISOString(),
      status: "idle",
      step: 0,
      stepOpen: false,
      approvedTools: [],
    });
    await before.write(sessionId, {
      events: [
        { type: "session.created" },
        { type: "turn.started", turnId: `turn_${index}`, cause: "message" },
        { type: "message.started", messageId: `msg_u${index}`, role: "user" },
        { type: "text.delta", messageId: `msg_u${index}`, delta: "make me a poster" },
        { type: "message.completed", messageId: `msg_u${index}` },
        { type: "message.started", messageId: `msg_a${index}`, role: "assistant" },
        { type: "text.delta", messageId: `msg_a${index}`, delta: "Let me think about" },
      ],
      transcript: [{ role: "user", content: [{ type: "text", text: "make me a poster" }] }],
      session: { status: "running", turnId: `turn_${index}` },
    });
  }
  await before.close();

  const store = sqliteStore(path);
  const start = now();
  const runtime = createAgentRuntime({
    model: scriptedModel(() => ({
      text: "Pick one.",
      toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "bold"] } }],
    })),
    tools: [pickTemplate],
    store,
    logger: { warn: () => {}, error: () => {} },
  });
  await runtime.ready;
  const readyMs = now() - start;
  await runtime.idle();
  const parkedMs = now() - start;
  const parked = (await store.listSessions({ limit: sessions })).filter((session) => session.status === "waiting");
  await runtime.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { sessions, readyMs, parkedMs, parked: parked.length };
}
