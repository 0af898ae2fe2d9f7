import type { SessionStore } from "../src/index.js";
import { idleSession } from "../src/store/records.js";

/**
 * Writes session `ses_<index>` as a crash leaves it: a turn running, the user's message
 * complete, the assistant's message cut off mid-stream. Used by the recovery tests and the
 * recovery benchmark.
 */
export async function writeCrashedSession(store: SessionStore, index: number): Promise<void> {
  const sessionId = `ses_${index}`;
  await store.createSession(idleSession(sessionId, "crashed"));
  await store.write(sessionId, {
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
