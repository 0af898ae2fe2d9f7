import { join } from "node:path";
import { defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRuntime, implement, memoryStore, type SessionStore, scriptedModel } from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { quiet, tempDir } from "./harness.js";
import { pickTemplate } from "./tools.js";

// A test that fakes the clock (Vitest's `vi.useFakeTimers()` fakes `setImmediate` too) still
// drives turns, parks and waits: only deadlines follow the fake clock.
const book = defineTool({
  name: "book_table",
  description: "Book a table; asks the person how many seats.",
  inputSchema: z.object({ restaurant: z.string() }),
});
const booking = implement(book, async ({ restaurant }, ctx) => {
  const answer = await ctx.ask({
    prompt: `How many seats at ${restaurant}?`,
    schema: z.object({ seats: z.number() }),
    expireAfter: 60_000,
  });
  return answer.action === "accept" ? { booked: answer.value.seats } : { booked: false, because: answer.action };
});

afterEach(() => vi.useRealTimers());

describe.each([
  ["memory", () => ({ store: memoryStore(), cleanup: () => {} })],
  [
    "SQLite",
    () => {
      const dir = tempDir();
      return { store: sqliteStore(join(dir.path, "hitl.sqlite")) as SessionStore, cleanup: dir.cleanup };
    },
  ],
])("under Vitest's fake timers, with the %s store", (_name, open) => {
  const start = (steps: Parameters<typeof scriptedModel>[0]) => {
    const { store, cleanup } = open();
    const runtime = createAgentRuntime({
      model: scriptedModel(steps),
      tools: [pickTemplate, booking],
      store,
      logger: quiet,
    });
    return {
      runtime,
      async close() {
        await runtime.close({ timeoutMs: 0 });
        await store.close();
        cleanup();
      },
    };
  };

  it("a turn parks on a client tool and idle() resolves", async () => {
    vi.useFakeTimers();
    const { runtime, close } = start([
      { toolCalls: [{ toolName: "pick_template", input: { templates: ["calm"] } }] },
      { text: "Done." },
    ]);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("waiting");
    await close();
  });

  it("a tool waiting on ctx.ask lets idle() resolve, and its question expires when the fake clock passes its deadline", async () => {
    vi.useFakeTimers();
    const { runtime, close } = start([
      { toolCalls: [{ toolName: "book_table", input: { restaurant: "Nora" } }] },
      { text: "Done." },
    ]);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).pending).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(61_000);
    await runtime.idle();
    const snapshot = await runtime.getSnapshot(sessionId);
    expect(snapshot.status).toBe("idle");
    expect(snapshot.pending).toEqual([]);
    const results = (await runtime.readEvents(sessionId, 0)).flatMap((event) =>
      event.type === "tool.result" ? [event.output] : [],
    );
    expect(results).toEqual([{ booked: false, because: "expire" }]);
    await close();
  });

  it("close({ timeoutMs: 0 }) leaves a tool waiting on ctx.ask at once, the clock still fake", async () => {
    vi.useFakeTimers();
    const { runtime, close } = start([{ toolCalls: [{ toolName: "book_table", input: { restaurant: "Nora" } }] }]);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("running");
    await close();
  });
});
