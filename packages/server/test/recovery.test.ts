import type { LanguageModelV4 } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { createAgentRuntime, memoryStore, type SessionStore, scriptedModel } from "../src/index.js";
import { writeCrashedSession } from "./crashed-session.js";
import { quiet } from "./harness.js";
import { pickTemplate } from "./tools.js";

/** `sessions` sessions as a crash leaves them (see {@link writeCrashedSession}). */
async function crashedStore(sessions: number): Promise<SessionStore> {
  const store = memoryStore();
  for (let index = 0; index < sessions; index++) await writeCrashedSession(store, index);
  return store;
}

/** A model that parks on `pick_template`, taking `ms` per call, counting the calls under way. */
function slowModel(ms: number) {
  const model = scriptedModel(() => ({
    text: "Pick one.",
    toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "bold"] } }],
  }));
  const calls = { started: 0, running: 0, most: 0 };
  const slow: LanguageModelV4 = {
    ...model,
    async doStream(options) {
      calls.started++;
      calls.most = Math.max(calls.most, ++calls.running);
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return await model.doStream(options);
      } finally {
        calls.running--;
      }
    },
  };
  return { model: slow, calls };
}

async function statuses(store: SessionStore) {
  const sessions = await store.listSessions({ limit: 1_000 });
  return sessions.reduce<Record<string, number>>((counts, session) => {
    counts[session.status] = (counts[session.status] ?? 0) + 1;
    return counts;
  }, {});
}

describe("recovery after a crash", () => {
  it("resumes the turns left running a bounded number at a time, and every one parks again", async () => {
    const store = await crashedStore(100);
    const { model, calls } = slowModel(5);
    const runtime = createAgentRuntime({ model, tools: [pickTemplate], store, logger: quiet });
    await runtime.ready;
    await runtime.idle();
    expect(calls.started).toBe(100);
    // One model call per resumed turn; never the whole backlog at once.
    expect(calls.most).toBeLessThanOrEqual(32);
    expect(calls.most).toBeGreaterThan(1);
    expect(await statuses(store)).toEqual({ waiting: 100 });
    await runtime.close();
  });

  it("is ready once the sessions left running are found, and resumes them while it serves", async () => {
    const store = await crashedStore(40);
    const { model, calls } = slowModel(300);
    const runtime = createAgentRuntime({ model, tools: [pickTemplate], store, logger: quiet });
    await runtime.ready;
    // Serving: a new session takes its first message while the resumed turns still run.
    const { sessionId } = await runtime.createSession();
    expect((await runtime.sendMessage(sessionId, "hello")).repeated).toBe(false);
    expect(calls.started).toBeLessThanOrEqual(33);
    expect((await statuses(store)).waiting ?? 0).toBe(0);
    await runtime.idle();
    expect(await statuses(store)).toEqual({ waiting: 41 });
    await runtime.close();
  });

  it("picks up no more once closing, and the next start resumes the rest", async () => {
    const store = await crashedStore(100);
    const first = slowModel(20);
    const runtime = createAgentRuntime({ model: first.model, tools: [pickTemplate], store, logger: quiet });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await runtime.close();
    expect(first.calls.started).toBeLessThan(100);
    const left = await statuses(store);
    expect(left.waiting).toBe(first.calls.started);
    expect(left.running).toBe(100 - first.calls.started);

    const second = slowModel(0);
    const next = createAgentRuntime({ model: second.model, tools: [pickTemplate], store, logger: quiet });
    await next.ready;
    await next.idle();
    expect(second.calls.started).toBe(100 - first.calls.started);
    expect(await statuses(store)).toEqual({ waiting: 100 });
    await next.close();
  });
});
