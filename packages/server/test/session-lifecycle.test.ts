import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type AgentRuntime, createAgentRuntime, implement, memoryStore, scriptedModel } from "../src/index.js";
import { checkOneResultPerCall, quiet } from "./harness.js";
import { serverTools } from "./tools.js";

const waitForAbort = defineTool({
  name: "wait_for_abort",
  description: "Runs until the turn is stopped.",
  inputSchema: z.object({}),
});
const started: (() => void)[] = [];
const slowTool = implement(
  waitForAbort,
  (_input, ctx) =>
    new Promise((_resolve, reject) => {
      started.shift()?.();
      ctx.signal.addEventListener("abort", () => reject(new Error("stopped")));
    }),
);

let runtime: AgentRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function start(
  script: Parameters<typeof scriptedModel>[0],
  options: Partial<Parameters<typeof createAgentRuntime>[0]> = {},
) {
  runtime = createAgentRuntime({
    model: scriptedModel(script),
    tools: [...serverTools, slowTool],
    store: memoryStore(),
    logger: quiet,
    ...options,
  });
  return runtime;
}

/** Every event of a session as its live listeners see it, and whether its streams were ended. */
function watch(target: AgentRuntime, sessionId: string) {
  const seen = { events: [] as ProtocolEvent[], ended: false };
  target.subscribe(
    sessionId,
    (event) => seen.events.push(event),
    () => {
      seen.ended = true;
    },
  );
  return seen;
}

describe("deleting a session", () => {
  it("cancels its open requests, each with one result, then removes it and ends its streams", async () => {
    const rt = start([
      {
        toolCalls: [
          { toolName: "pick_template", input: { templates: ["a"] } },
          { toolName: "refund_charge", input: { chargeId: "ch", amount: 5000 } },
        ],
      },
    ]);
    const { sessionId } = await rt.createSession({ owner: "alice" });
    const before = await rt.readEvents(sessionId, 0);
    const seen = watch(rt, sessionId);
    await rt.sendMessage(sessionId, "go");
    await rt.idle();
    expect((await rt.getSnapshot(sessionId)).pending).toHaveLength(2);

    await rt.deleteSession(sessionId);
    const all = [...before, ...seen.events];
    expect(all.filter((event) => event.type === "input.resolved").map((event) => event.action)).toEqual([
      "cancel",
      "cancel",
    ]);
    expect(checkOneResultPerCall(all)).toEqual([]);
    expect(all.at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(seen.ended).toBe(true);
    expect(await rt.getSessionInfo(sessionId)).toBeUndefined();
    await expect(rt.getSnapshot(sessionId)).rejects.toMatchObject({ code: "not_found" });
    await expect(rt.deleteSession(sessionId)).rejects.toMatchObject({ code: "not_found" });
    expect(await rt.listSessions({ owner: "alice" })).toEqual([]);
  });

  it("stops a running turn first: the running call gets its one result", async () => {
    const rt = start([{ toolCalls: [{ toolName: "wait_for_abort", input: {} }] }]);
    const { sessionId } = await rt.createSession();
    const seen = watch(rt, sessionId);
    const running = new Promise<void>((resolve) => started.push(resolve));
    await rt.sendMessage(sessionId, "go");
    await running;

    await rt.deleteSession(sessionId);
    // The tool saw the abort and threw, so its result is the error it threw.
    expect(seen.events.find((event) => event.type === "tool.result")).toMatchObject({ output: { message: "stopped" } });
    expect(checkOneResultPerCall(seen.events)).toEqual([]);
    expect(seen.events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(seen.ended).toBe(true);
    expect(await rt.getSessionInfo(sessionId)).toBeUndefined();
  });

  it("lets go of the session's transcript, which the runtime kept for its next turn", async () => {
    // The messages each model call was given, as read from the store: collected once nothing holds them.
    const collected: number[] = [];
    const watchFree = new FinalizationRegistry<number>((index) => collected.push(index));
    let read = 0;
    const store = memoryStore();
    const readTranscript = store.readTranscript.bind(store);
    store.readTranscript = async (sessionId, from) => {
      const messages = structuredClone(await readTranscript(sessionId, from));
      for (const message of messages) watchFree.register(message, read++);
      return messages;
    };
    const rt = start([{ text: "one" }, { text: "two" }], { store });
    const { sessionId } = await rt.createSession();
    await rt.sendMessage(sessionId, "first");
    await rt.idle();
    await rt.sendMessage(sessionId, "second");
    await rt.idle();
    expect(read).toBeGreaterThan(0);

    await rt.deleteSession(sessionId);
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    await vi.waitFor(() => {
      gc();
      expect(collected).toHaveLength(read);
    });
  });
});

describe("retention", () => {
  it("deletes sessions idle past the age, cancelling what they had open, and keeps the others", async () => {
    const store = memoryStore();
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await store.createSession({
      sessionId: "ses_old",
      createdAt: old,
      status: "idle",
      step: 0,
      stepOpen: false,
      approvedTools: [],
    });
    runtime = createAgentRuntime({ model: scriptedModel([]), store, logger: quiet, deleteIdleAfter: 86_400_000 });
    const { sessionId: fresh } = await runtime.createSession();
    await runtime.ready; // the first sweep starts here, in the background
    await vi.waitFor(async () => expect(await store.getSession("ses_old")).toBeUndefined());
    expect(await store.getSession(fresh)).toBeDefined();
  });

  it("refuses an age that is not a positive number of milliseconds", () => {
    expect(() => start([], { deleteIdleAfter: 0 })).toThrow(/deleteIdleAfter must be a positive number/);
  });
});

describe("a cap on sessions per owner", () => {
  it("refuses the owner's next session with session_limit, even when requests race", async () => {
    const rt = start([], { maxSessionsPerOwner: 2 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => rt.createSession({ owner: "alice" })));
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(2);
    const refused = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      code: "session_limit",
      status: 409,
      message: expect.stringMatching(/delete one/),
    });
    expect((await rt.createSession({ owner: "bob" })).sessionId).toMatch(/^ses_/);
    const [first] = await rt.listSessions({ owner: "alice" });
    await rt.deleteSession(first!.sessionId);
    expect((await rt.createSession({ owner: "alice" })).sessionId).toMatch(/^ses_/);
  });
});
