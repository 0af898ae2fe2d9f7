import { join } from "node:path";
import { defineClientTool, defineTool, type ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type AgentRuntimeOptions,
  createAgentRuntime,
  implement,
  type RuntimeTool,
  type SessionStore,
  scriptedModel,
  ToolTimedOut,
} from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, startServer, tempDir } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";

const lookup = defineTool({ name: "lookup", description: "Looks something up.", inputSchema: z.object({}) });
const quick = defineTool({ name: "quick", description: "Answers at once.", inputSchema: z.object({}) });

/** A deferred: a promise and what settles it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** A log that keeps the warnings. */
function keptLog() {
  const warnings: string[] = [];
  return {
    warnings,
    logger: { warn: (...args: unknown[]) => warnings.push(args.map(String).join(" ")), error: () => {} },
  };
}

const results = (events: ProtocolEvent[]) => events.filter((event) => event.type === "tool.result");

let server: ReturnType<typeof startServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs one turn whose first step calls `calls`, then says "Done."; answers the session's events once it is idle. */
async function runTurn(tools: RuntimeTool[], calls: { toolName: string }[], options: Partial<AgentRuntimeOptions>) {
  const log = keptLog();
  const { model, prompts } = recordingModel([
    { toolCalls: calls.map(({ toolName }) => ({ toolName, input: {} })) },
    { text: "Done." },
  ]);
  server = startServer(model, { tools, logger: log.logger, ...options });
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  await vi.waitFor(async () => expect((await server!.snapshot(id)).status).toBe("idle"), { timeout: 10_000 });
  return { id, events: await server.events(id), prompts, warnings: log.warnings };
}

describe("a tool call that runs past its time limit", () => {
  it("gets one error result saying it timed out, its signal aborts, and the model goes on", async () => {
    let reason: unknown;
    const hangs = implement(lookup, (_input, ctx) => {
      ctx.signal.addEventListener("abort", () => {
        reason = ctx.signal.reason;
      });
      return new Promise<never>(() => {}); // never ends
    });
    const { events, prompts, warnings } = await runTurn([hangs], [{ toolName: "lookup" }], { toolTimeoutMs: 50 });
    expect(results(events)).toEqual([
      expect.objectContaining({
        outcome: "error",
        output: { message: "The tool timed out after 50 ms and was given up; it may or may not have completed." },
      }),
    ]);
    expect(reason).toBeInstanceOf(ToolTimedOut);
    expect(events.at(-1)?.type).toBe("turn.completed");
    expect(lastToolResults(prompts[1])).toEqual([
      expect.objectContaining({ toolName: "lookup", output: expect.objectContaining({ type: "error-text" }) }),
    ]);
    expect(warnings.join("\n")).toContain("(lookup): The tool timed out after 50 ms");
  });

  it("takes a tool's own timeoutMs over the runtime's, and leaves a tool that ends in time alone", async () => {
    const hangs = implement(lookup, () => new Promise<never>(() => {}), { timeoutMs: 30 });
    const answers = implement(quick, async () => ({ answer: 42 }));
    const { events } = await runTurn([hangs, answers], [{ toolName: "lookup" }, { toolName: "quick" }], {
      toolTimeoutMs: 60_000,
    });
    expect(results(events)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ outcome: "error", output: { message: expect.stringContaining("after 30 ms") } }),
        expect.objectContaining({ outcome: "ok", output: { answer: 42 } }),
      ]),
    );
    expect(checkOneResultPerCall(events)).toEqual([]);
  });

  it("limits a client tool's resolve too, given with implement(tool, { resolve, timeoutMs })", async () => {
    const pick = defineClientTool({
      name: "pick",
      description: "Pick one.",
      inputSchema: z.object({}),
      answerSchema: z.object({ id: z.string() }),
    });
    server = startServer(scriptedModel([{ toolCalls: [{ toolName: "pick", input: {} }] }, { text: "Done." }]), {
      tools: [implement(pick, { resolve: () => new Promise<never>(() => {}), timeoutMs: 40 })],
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await vi.waitFor(async () => expect((await server!.snapshot(id)).pending).toHaveLength(1));
    const [request] = (await server.snapshot(id)).pending;
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { id: "a" } }],
    });
    await vi.waitFor(async () => expect((await server!.snapshot(id)).status).toBe("idle"), { timeout: 10_000 });
    expect(results(await server.events(id))).toEqual([
      expect.objectContaining({ outcome: "error", output: { message: expect.stringContaining("after 40 ms") } }),
    ]);
  });

  it("keeps one result per call when the tools complete just as their time runs out, and drops what comes after", async () => {
    // Each ends on a timer due a moment before the limit, with it, or a moment after, or as its signal aborts.
    let started = 0;
    const racing = implement(lookup, (_input, ctx) => {
      const { promise, resolve } = deferred<{ done: true }>();
      ctx.signal.addEventListener("abort", () => resolve({ done: true }));
      setTimeout(() => resolve({ done: true }), 39 + (started++ % 3));
      return promise;
    });
    const calls = Array.from({ length: 6 }, () => ({ toolName: "lookup" }));
    const { id, events, warnings } = await runTurn([racing], calls, { toolTimeoutMs: 40 });
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(results(events)).toHaveLength(6);
    for (const result of results(events)) {
      expect([JSON.stringify(result.output)]).toContainEqual(
        expect.stringMatching(/^(\{"done":true\}|\{"message":"The tool timed out after 40 ms.*\})$/),
      );
    }
    const timedOut = results(events).filter((result) => result.outcome === "error").length;
    expect(timedOut).toBeGreaterThan(0); // at least those due a moment after the limit
    await vi.waitFor(() =>
      expect(warnings.filter((line) => line.includes("the tool ended after it timed out"))).toHaveLength(timedOut),
    );
    await server!.runtime.idle();
    expect(await server!.events(id)).toEqual(events);
  });

  it("keeps one result per call when a Stop races the time limit", async () => {
    for (const toolTimeoutMs of [10, 25, 40, 60]) {
      const late = deferred<{ done: true }>();
      const stubborn = implement(lookup, () => late.promise); // ignores its signal
      const log = keptLog();
      server = startServer(
        scriptedModel([
          {
            toolCalls: [
              { toolName: "lookup", input: {} },
              { toolName: "lookup", input: {} },
            ],
          },
          { text: "Done." },
        ]),
        { tools: [stubborn], logger: log.logger, toolTimeoutMs, abortGraceMs: 25 },
      );
      const id = await server.session();
      await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
      await vi.waitFor(async () =>
        expect((await server!.events(id)).some((event) => event.type === "tool.called")).toBe(true),
      );
      await server.call("POST", `/sessions/${id}/cancel`, {});
      await vi.waitFor(async () => expect((await server!.snapshot(id)).status).toBe("idle"), { timeout: 10_000 });
      await server.runtime.idle();
      late.resolve({ done: true }); // after the turn ended: written nowhere
      await new Promise((resolve) => setImmediate(resolve));
      await server.runtime.idle();
      const events = await server.events(id);
      expect(checkOneResultPerCall(events)).toEqual([]);
      expect(results(events)).toHaveLength(2);
      expect(results(events).every((result) => result.outcome !== "ok")).toBe(true);
      // Stopped while the tools ran, or after both timed out and the turn went on.
      expect(["turn.cancelled", "turn.completed"]).toContain(events.at(-1)?.type);
      await server.close();
      server = undefined;
    }
  });

  it("gives a call cut off by a restart one result, and neither its timer nor its late completion writes after", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    const late = deferred<{ done: true }>();
    let started = 0;
    const stubborn = implement(lookup, () => {
      started++;
      return late.promise;
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "lookup", input: {} }] }, { text: "Done." }]);
    const runtimeOn = (store: SessionStore) =>
      createAgentRuntime({
        model,
        tools: [stubborn],
        store,
        logger: keptLog().logger,
        toolTimeoutMs: 200,
        abortGraceMs: 10,
      });
    const first = sqliteStore(path);
    const runtime = runtimeOn(first);
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await expect.poll(() => started).toBe(1);
    await runtime.close({ timeoutMs: 10 }); // leaves the turn running, as a crash would
    await first.close();

    const second = sqliteStore(path);
    const restarted = runtimeOn(second);
    try {
      await restarted.ready;
      await vi.waitFor(async () => expect((await second.getSession(sessionId))?.status).toBe("idle"), {
        timeout: 10_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the first runtime's limit
      late.resolve({ done: true });
      await restarted.idle();
      const events = await second.readEvents(sessionId, 0);
      expect(checkOneResultPerCall(events)).toEqual([]);
      expect(results(events)).toEqual([
        expect.objectContaining({
          outcome: "error",
          output: { message: expect.stringContaining("stopped before it finished") },
        }),
      ]);
      expect(started).toBe(1);
      expect(events.at(-1)?.type).toBe("turn.completed");
    } finally {
      await restarted.close();
      await second.close();
      dir.cleanup();
    }
  });

  it("cancels a question the tool waits on (ctx.ask) saying the tool ran out of time, whether or not it passed ctx.signal", async () => {
    const asks = (withSignal: boolean, timeoutMs: number) =>
      implement(
        lookup,
        async (_input, ctx) =>
          ctx.ask({
            prompt: "Which one?",
            schema: z.object({ id: z.string() }),
            ...(withSignal ? { signal: ctx.signal } : {}),
          }),
        { timeoutMs },
      );
    for (const [withSignal, timeoutMs, limit] of [
      [false, 1_000, "1 s"],
      [true, 60, "60 ms"],
    ] as const) {
      const { events } = await runTurn([asks(withSignal, timeoutMs)], [{ toolName: "lookup" }], {});
      expect(events.filter((event) => event.type === "input.resolved")).toEqual([
        expect.objectContaining({
          action: "cancel",
          reason: `The tool ran out of time (${limit}) before the answer came.`,
          reasonCode: "tool_timeout",
        }),
      ]);
      expect(results(events)).toEqual([
        expect.objectContaining({
          outcome: "error",
          output: { message: expect.stringContaining(`after ${timeoutMs} ms`) },
        }),
      ]);
      expect(checkOneResultPerCall(events)).toEqual([]);
      await server?.close();
      server = undefined;
    }
  });

  it("refuses a limit that is not more than 0, naming the option or the tool", () => {
    for (const toolTimeoutMs of [0, -1, Number.NaN]) {
      expect(() => startServer(scriptedModel([]), { toolTimeoutMs })).toThrow(/toolTimeoutMs must be more than 0/);
    }
    const bad = implement(lookup, async () => ({}), { timeoutMs: 0 });
    expect(() => startServer(scriptedModel([]), { tools: [bad] })).toThrow(
      /timeoutMs of tool "lookup" must be more than 0/,
    );
  });
});
