import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { defineTool } from "@hitl-kit/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRuntime,
  createFetchHandler,
  implement,
  memoryStore,
  type RuntimeTool,
  type SessionStore,
  StoreUnavailable,
  scriptedModel,
} from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { browser, checkOneResultPerCall, quiet, tempDir } from "./harness.js";

const exportReport = defineTool({
  name: "export_report",
  description: "Export a long report.",
  inputSchema: z.object({ pages: z.number() }),
});

/** A log that keeps the warnings. */
function keptLog() {
  const warnings: string[] = [];
  return {
    warnings,
    logger: { warn: (...args: unknown[]) => warnings.push(args.map(String).join(" ")), error: () => {} },
  };
}

/** The next start on the SQLite file, once it has resumed what the close left, and the session's log then. */
async function startAgain(path: string, model: LanguageModelV4, tools: RuntimeTool[], sessionId: string) {
  const again = sqliteStore(path);
  const next = createAgentRuntime({ model, tools, store: again, logger: quiet });
  await next.ready;
  await next.idle();
  return { next, again, events: await next.readEvents(sessionId, 0) };
}

describe("closing with turns still running", () => {
  it("leaves a tool that outlasts timeoutMs as a crash would: nothing written, and the next start gives it one result", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    let started = 0;
    // Ignores its signal, as a slow export would: only the process ending stops it.
    const slow = implement(exportReport, async () => {
      started++;
      await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
      return { url: "/reports/1.pdf" };
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "export_report", input: { pages: 400 } }] }]);
    const log = keptLog();
    const store = sqliteStore(path);
    const runtime = createAgentRuntime({ model, tools: [slow], store, logger: log.logger, abortGraceMs: 20 });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "export it");
    await expect.poll(() => started).toBe(1);
    const began = Date.now();
    await runtime.close({ timeoutMs: 50 });
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(log.warnings.join("\n")).toContain(
      `1 turn(s) still running after 50 ms were left for the next start to resume (a tool call still running then gets an error result saying it may or may not have completed, or runs again when its tool is implemented with rerunAfterRestart): ${sessionId}.`,
    );
    const left = await runtime.readEvents(sessionId, 0).catch(() => undefined); // closed: refused
    expect(left).toBeUndefined();
    await store.close();

    const sorry = scriptedModel([{ text: "Sorry, the export stopped." }]);
    const { next, again, events } = await startAgain(path, sorry, [slow], sessionId);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "error" }),
    ]);
    expect(started).toBe(1); // not run twice
    expect((await next.getSnapshot(sessionId)).status).toBe("idle");
    await next.close();
    await again.close();
    dir.cleanup();
  });

  it("keeps what a tool that stops on its signal within the grace threw as its result, and the next start goes on from it", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    let started = 0;
    const stops = implement(exportReport, (_input, { signal }) => {
      started++;
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(new Error("The export was stopped at page 120.")), {
          once: true,
        }),
      );
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "export_report", input: { pages: 400 } }] }]);
    const store = sqliteStore(path);
    const runtime = createAgentRuntime({ model, tools: [stops], store, logger: quiet, abortGraceMs: 5_000 });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "export it");
    await expect.poll(() => started).toBe(1);
    await runtime.close({ timeoutMs: 50 });
    await store.close();

    // The script's second reply: the turn's second model call, which reads the tool's result.
    const model2 = scriptedModel([{ text: "unused" }, { text: "The export stopped at page 120." }]);
    const { next, again, events } = await startAgain(path, model2, [stops], sessionId);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "error", output: { message: "The export was stopped at page 120." } }),
    ]);
    expect(started).toBe(1);
    const snapshot = await next.getSnapshot(sessionId);
    expect(snapshot).toMatchObject({ status: "idle" });
    expect(snapshot.messages.at(-1)).toMatchObject({
      parts: [{ type: "text", text: "The export stopped at page 120." }],
    });
    await next.close();
    await again.close();
    dir.cleanup();
  });

  it("leaves a model call that hangs, and the next start makes it again", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    const signals: AbortSignal[] = [];
    const reply = scriptedModel([{ text: "unused" }]);
    const hanging: LanguageModelV4 = {
      ...reply,
      doStream: (options) => {
        signals.push(options.abortSignal!);
        return new Promise<never>(() => {});
      },
    };
    const store = sqliteStore(path);
    const runtime = createAgentRuntime({ model: hanging, store, logger: quiet, modelStallMs: 600_000 });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "hello");
    await expect.poll(() => signals.length).toBe(1);
    await runtime.close({ timeoutMs: 20 });
    expect(signals[0]!.aborted).toBe(true);
    await store.close();

    const again = sqliteStore(path);
    const next = createAgentRuntime({ model: scriptedModel([{ text: "Hello again." }]), store: again, logger: quiet });
    await next.ready;
    await next.idle();
    const snapshot = await next.getSnapshot(sessionId);
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.messages.at(-1)).toMatchObject({
      role: "assistant",
      parts: [{ type: "text", text: "Hello again." }],
    });
    await next.close();
    await again.close();
    dir.cleanup();
  });
});

describe("closing with event streams open", () => {
  it("ends every event stream once the turns are done, so browsers reconnect elsewhere", async () => {
    const runtime = createAgentRuntime({
      model: scriptedModel([{ text: "Hi." }]),
      store: memoryStore(),
      logger: quiet,
    });
    const handler = createFetchHandler(runtime, { heartbeatMs: 60_000, rateLimit: false });
    const { call, send } = browser(handler);
    const sessionId: string = (await call("POST", "/sessions", {})).body.sessionId;
    await call("POST", `/sessions/${sessionId}/messages`, { text: "hello" });
    await runtime.idle();
    const response = await send(`/sessions/${sessionId}/events`);
    const reader = response.body!.getReader();
    const text: string[] = [];
    const read = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text.push(new TextDecoder().decode(value));
      }
    })();
    await expect.poll(() => text.join("")).toContain("turn.completed");
    await runtime.close();
    await read; // the body ended: the browser's EventSource reconnects
    expect(text.join("")).toContain("Hi.");
  });
});

describe("health", () => {
  it("says starting until the store is reached, serving, store_unavailable while it does not answer, and closing", async () => {
    const store = memoryStore();
    let down = true;
    const flaky: SessionStore = {
      ...store,
      listSessionsToRecover: () =>
        down ? Promise.reject(new StoreUnavailable("connect ECONNREFUSED")) : store.listSessionsToRecover(),
      getSession: (sessionId) =>
        down ? Promise.reject(new StoreUnavailable("connect ECONNREFUSED")) : store.getSession(sessionId),
    };
    const runtime = createAgentRuntime({ model: scriptedModel([{ text: "Hi." }]), store: flaky, logger: quiet });
    await expect(runtime.ready).rejects.toThrow("ECONNREFUSED");
    expect(await runtime.health()).toEqual({ ok: false, status: "starting" });
    down = false;
    await expect.poll(() => runtime.health(), { timeout: 5_000 }).toEqual({ ok: true, status: "serving" });
    down = true;
    expect(await runtime.health()).toEqual({ ok: false, status: "store_unavailable" });
    down = false;
    const closing = runtime.close();
    expect(await runtime.health()).toEqual({ ok: false, status: "closing" });
    await closing;
  });
});
