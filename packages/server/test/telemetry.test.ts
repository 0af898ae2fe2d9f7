import { AsyncLocalStorage } from "node:async_hooks";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { defineTool } from "@hitl-kit/protocol";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type AgentRuntimeOptions,
  createAgentRuntime,
  implement,
  memoryStore,
  type RuntimeTelemetry,
  StoreUnavailable,
  scriptedModel,
} from "../src/index.js";
import { writeCrashedSession } from "./crashed-session.js";
import { quiet, readSse, startServer } from "./harness.js";
import { flakyReads, reportingModel } from "./telemetry-fixtures.js";
import { pickTemplate, serverTools } from "./tools.js";

/** The hooks that report (not `runToolCall`, which runs a tool). */
type Hooks = Required<Omit<RuntimeTelemetry, "runToolCall">>;
type Kind = keyof Hooks;
type Seen = { [K in Kind]: { kind: K; event: Parameters<Hooks[K]>[0] } }[Kind];

const kinds: Kind[] = [
  "onTurnStart",
  "onTurnFinish",
  "onModelCallStart",
  "onModelCallFinish",
  "onToolCallStart",
  "onToolCallFinish",
  "onRequestParked",
  "onRequestSettled",
  "onStoreUnavailable",
  "onEventStreamsChange",
];

/** Telemetry hooks that record every call, in order. */
function recorder() {
  const seen: Seen[] = [];
  const telemetry = Object.fromEntries(
    kinds.map((kind) => [kind, (event: unknown) => void seen.push({ kind, event } as Seen)]),
  ) as Hooks;
  return {
    telemetry,
    seen,
    /** The kinds of the calls so far, forgetting them. */
    take(): Kind[] {
      return seen.splice(0).map((entry) => entry.kind);
    },
    /** The events of one hook so far. */
    of<K extends Kind>(kind: K): Parameters<Hooks[K]>[0][] {
      return seen.filter((entry) => entry.kind === kind).map((entry) => entry.event as Parameters<Hooks[K]>[0]);
    },
  };
}

/** A runtime on a memory store whose telemetry a recorder keeps, and a session `text` was sent to. */
async function sent(text: string, options: Pick<AgentRuntimeOptions, "model"> & Partial<AgentRuntimeOptions>) {
  const record = recorder();
  const runtime = createAgentRuntime({ store: memoryStore(), logger: quiet, ...options, telemetry: record.telemetry });
  const { sessionId } = await runtime.createSession();
  const { turnId } = await runtime.sendMessage(sessionId, text);
  return { record, runtime, sessionId, turnId };
}

const pick = { toolName: "pick_template", input: { templates: ["calm", "bold"] } };

describe("the telemetry hooks", () => {
  it("report a parked turn's two runs, its model calls with usage, and the request with how long it waited", async () => {
    const { record, runtime, sessionId, turnId } = await sent("make me a poster", {
      model: reportingModel([{ text: "Pick one.", toolCalls: [pick] }, { text: "Done." }]),
      tools: [pickTemplate],
    });
    await runtime.idle();
    expect(record.of("onTurnStart")).toEqual([{ sessionId, turnId, cause: "message" }]);
    const [start] = record.of("onModelCallStart");
    expect(start).toEqual({
      sessionId,
      turnId,
      modelCallId: expect.stringMatching(/^mcall_/),
      step: 1,
      attempt: 0,
      provider: "test.chat",
      modelId: "test-model",
    });
    const [parked] = record.of("onRequestParked");
    expect(parked).toEqual({
      sessionId,
      turnId,
      requestId: expect.stringMatching(/^req_/),
      toolCallId: expect.any(String),
      toolName: "pick_template",
      kind: "input",
      asked: false,
    });
    expect(record.of("onModelCallFinish")).toEqual([
      {
        ...start,
        durationMs: expect.any(Number),
        outcome: "ok",
        finishReason: "tool-calls",
        usage: { inputTokens: 11, outputTokens: 7, reasoningTokens: 2, cachedInputTokens: 3 },
        responseId: "resp_1",
        responseModelId: "test-model-2026",
      },
    ]);
    expect(record.of("onTurnFinish")).toEqual([
      { sessionId, turnId, cause: "message", outcome: "waiting", durationMs: expect.any(Number) },
    ]);
    expect(record.take().join(" ")).toBe("onTurnStart onModelCallStart onModelCallFinish onRequestParked onTurnFinish");

    await runtime.respond(sessionId, [
      { requestId: parked!.requestId, action: "accept", value: { templateId: "calm" } },
    ]);
    await runtime.idle();
    const [settled] = record.of("onRequestSettled");
    expect(settled).toEqual({ ...parked, action: "accept", waitedMs: expect.any(Number) });
    expect(settled!.waitedMs).toBeGreaterThanOrEqual(0);
    expect(record.of("onTurnStart")).toEqual([{ sessionId, turnId, cause: "responses" }]);
    expect(record.of("onModelCallFinish")).toMatchObject([
      { step: 2, attempt: 0, outcome: "ok", finishReason: "stop", responseId: "resp_2" },
    ]);
    expect(record.of("onTurnFinish")).toMatchObject([{ turnId, cause: "responses", outcome: "completed" }]);
    expect(record.take().join(" ")).toBe(
      "onRequestSettled onTurnStart onModelCallStart onModelCallFinish onTurnFinish",
    );
    await runtime.close();
  });

  it("report each tool's work inside its run: one that returned and one that threw", async () => {
    const { record, runtime, sessionId, turnId } = await sent("weather?", {
      model: scriptedModel([
        {
          toolCalls: [
            { toolName: "lookup_weather", input: { city: "Paris" }, toolCallId: "call_paris" },
            { toolName: "lookup_weather", input: { city: "Atlantis" }, toolCallId: "call_atlantis" },
          ],
        },
        { text: "Paris is mild; Atlantis is not a city." },
      ]),
      tools: serverTools,
    });
    await runtime.idle();
    const ids = { sessionId, turnId, toolName: "lookup_weather", step: 1 };
    expect(record.of("onToolCallStart")).toEqual([
      { ...ids, toolCallId: "call_paris" },
      { ...ids, toolCallId: "call_atlantis" },
    ]);
    const finished = record.of("onToolCallFinish");
    expect(finished).toHaveLength(2);
    expect(finished).toContainEqual({
      ...ids,
      toolCallId: "call_paris",
      outcome: "ok",
      durationMs: expect.any(Number),
    });
    expect(finished).toContainEqual({
      ...ids,
      toolCallId: "call_atlantis",
      outcome: "error",
      error: { code: "Error", message: "Error: No such city" },
      durationMs: expect.any(Number),
    });
    expect(record.of("onTurnFinish")).toMatchObject([{ turnId, outcome: "completed" }]);
    const order = record.take();
    expect(order[0]).toBe("onTurnStart");
    expect(order.at(-1)).toBe("onTurnFinish");
    // The tools ran between the two model calls.
    const calls = order.filter((kind) => kind.startsWith("onModelCall") || kind.startsWith("onToolCall"));
    expect(calls.join(" ")).toBe(
      "onModelCallStart onModelCallFinish onToolCallStart onToolCallStart onToolCallFinish onToolCallFinish onModelCallStart onModelCallFinish",
    );
    await runtime.close();
  });

  it("report a Stop: a request cancelled while parked, and a running tool's run ending as cancelled", async () => {
    const record = recorder();
    const waits = defineTool({ name: "wait_for_stop", description: "Waits.", inputSchema: z.object({}) });
    const waiter = implement(
      waits,
      (_input, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")))),
    );
    const runtime = createAgentRuntime({
      model: scriptedModel((context) =>
        context.lastUserText === "wait"
          ? { toolCalls: [{ toolName: "wait_for_stop", input: {} }] }
          : { toolCalls: [pick] },
      ),
      tools: [pickTemplate, waiter],
      store: memoryStore(),
      logger: quiet,
      telemetry: record.telemetry,
    });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "pick");
    await runtime.idle();
    record.take();
    await runtime.cancel(sessionId);
    expect(record.of("onRequestSettled")).toMatchObject([{ sessionId, action: "cancel", toolName: "pick_template" }]);
    // The run ended when it parked: a cancel while parked starts and ends none.
    expect(record.take()).toEqual(["onRequestSettled"]);

    const { turnId } = await runtime.sendMessage(sessionId, "wait");
    await vi.waitFor(() => expect(record.of("onToolCallStart")).toHaveLength(1));
    await runtime.cancel(sessionId);
    await runtime.idle();
    expect(record.of("onToolCallFinish")).toMatchObject([
      { turnId, toolName: "wait_for_stop", outcome: "error", error: { code: "Error", message: "Error: stopped" } },
    ]);
    expect(record.of("onTurnFinish")).toMatchObject([{ turnId, cause: "message", outcome: "cancelled" }]);
    await runtime.close();
  });

  it("report a request that expired, and the run its expiry resumed", async () => {
    const { record, runtime, sessionId, turnId } = await sent("pick", {
      model: scriptedModel([{ toolCalls: [pick] }, { text: "No answer, so I picked calm." }]),
      tools: [pickTemplate],
      expireAfter: 1,
    });
    await vi.waitFor(() => expect(record.of("onTurnFinish")).toHaveLength(2), { timeout: 10_000 });
    await runtime.idle();
    expect(record.of("onRequestSettled")).toMatchObject([
      { sessionId, turnId, toolName: "pick_template", action: "expire", waitedMs: expect.any(Number) },
    ]);
    expect(record.of("onTurnStart").map((event) => event.cause)).toEqual(["message", "responses"]);
    expect(record.of("onTurnFinish").map((event) => event.outcome)).toEqual(["waiting", "completed"]);
    await runtime.close();
  });

  it("report a model call's failure: a retry with its wait, then a refusal that fails the turn", async () => {
    const record = recorder();
    const failures = [
      Object.assign(new Error("Overloaded"), { statusCode: 529, isRetryable: true }),
      Object.assign(new Error("Invalid key"), { statusCode: 401, isRetryable: false }),
    ];
    const scripted = scriptedModel([{ text: "never" }]);
    const model: LanguageModelV4 = {
      ...scripted,
      async doStream(call) {
        const failure = failures.shift();
        if (failure) throw failure;
        return scripted.doStream(call);
      },
    };
    const runtime = createAgentRuntime({
      model,
      store: memoryStore(),
      logger: quiet,
      modelRetryDelayMs: 0,
      telemetry: record.telemetry,
    });
    const { sessionId } = await runtime.createSession();
    const { turnId } = await runtime.sendMessage(sessionId, "hello");
    await runtime.idle();
    const calls = record.of("onModelCallFinish");
    expect(calls).toMatchObject([
      { turnId, step: 1, attempt: 0, outcome: "error", retryInMs: 0, error: { code: "model_529" } },
      { turnId, step: 1, attempt: 1, outcome: "error", error: { code: "model_401" } },
    ]);
    // The model call's report has the provider's words; the turn's, what the person read.
    expect(calls[0]!.error!.message).toContain("Overloaded");
    expect(calls[1]!.error!.message).toContain("Invalid key");
    expect(calls[1]).not.toHaveProperty("retryInMs");
    expect(new Set(calls.map((call) => call.modelCallId)).size).toBe(2);
    expect(record.of("onTurnFinish")).toEqual([
      {
        sessionId,
        turnId,
        cause: "message",
        outcome: "failed",
        error: { code: "model_401", message: "The model provider refused this server's credentials (its API key)." },
        durationMs: expect.any(Number),
      },
    ]);
    await runtime.close();
  });

  it("report a turn a restart resumed, and how long its request waited across the restart", async () => {
    const store = memoryStore();
    await writeCrashedSession(store, 0);
    const first = recorder();
    const model = scriptedModel([{ text: "Pick one.", toolCalls: [pick] }, { text: "Done." }]);
    const options = { model, tools: [pickTemplate], store, logger: quiet };
    const before = createAgentRuntime({ ...options, telemetry: first.telemetry });
    await before.ready;
    await before.idle();
    expect(first.of("onTurnStart")).toEqual([{ sessionId: "ses_0", turnId: "turn_0", cause: "resumed" }]);
    expect(first.of("onTurnFinish")).toMatchObject([{ turnId: "turn_0", cause: "resumed", outcome: "waiting" }]);
    const [parked] = first.of("onRequestParked");
    await before.close();

    const second = recorder();
    const after = createAgentRuntime({ ...options, telemetry: second.telemetry });
    await after.ready;
    await after.respond("ses_0", [{ requestId: parked!.requestId, action: "accept", value: { templateId: "bold" } }]);
    await after.idle();
    expect(second.of("onRequestSettled")).toEqual([{ ...parked, action: "accept", waitedMs: expect.any(Number) }]);
    expect(second.of("onTurnStart")).toEqual([{ sessionId: "ses_0", turnId: "turn_0", cause: "responses" }]);
    expect(second.of("onTurnFinish")).toMatchObject([{ turnId: "turn_0", outcome: "completed" }]);
    await after.close();
  });

  it("report a run this process stopped driving as interrupted, when it closed before the turn ended", async () => {
    const record = recorder();
    const slow = defineTool({ name: "slow", description: "Slow.", inputSchema: z.object({}) });
    // A tool that never ends, and ignores its signal.
    const tool = implement(slow, () => new Promise(() => {}));
    const runtime = createAgentRuntime({
      model: scriptedModel([{ toolCalls: [{ toolName: "slow", input: {} }] }, { text: "Done." }]),
      tools: [tool],
      store: memoryStore(),
      logger: quiet,
      abortGraceMs: 0,
      telemetry: record.telemetry,
    });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await vi.waitFor(() => expect(record.of("onToolCallStart")).toHaveLength(1));
    await runtime.close({ timeoutMs: 0 });
    expect(record.of("onTurnFinish")).toMatchObject([{ sessionId, cause: "message", outcome: "interrupted" }]);
  });

  it("report each store call that failed with StoreUnavailable", async () => {
    const record = recorder();
    const { store, state } = flakyReads();
    const runtime = createAgentRuntime({
      model: scriptedModel([{ text: "Hello." }]),
      store,
      logger: quiet,
      telemetry: record.telemetry,
    });
    await runtime.ready;
    state.down = true;
    expect(await runtime.health()).toEqual({ ok: false, status: "store_unavailable" });
    await expect(runtime.getSessionInfo("ses_x")).rejects.toThrow(StoreUnavailable);
    state.down = false;
    expect(await runtime.health()).toEqual({ ok: true, status: "serving" });
    const failed = record.of("onStoreUnavailable");
    expect(failed.map((event) => event.operation)).toEqual(["getSession", "getSession"]);
    expect(failed[0]!.error).toBeInstanceOf(StoreUnavailable);
    await runtime.close();
  });

  it("report how many event streams are open, as they open, close and end with their session", async () => {
    const record = recorder();
    const server = startServer(scriptedModel([{ text: "Hello." }]), {
      store: memoryStore(),
      telemetry: record.telemetry,
    });
    const sessionId = await server.session();
    const created = (events: { type: string }[]) => events.some((event) => event.type === "session.created");
    const first = await server.send(`/sessions/${sessionId}/events`);
    await readSse(first, sessionId, created);
    await vi.waitFor(() => expect(record.of("onEventStreamsChange").at(-1)?.open).toBe(0));
    const second = await server.send(`/sessions/${sessionId}/events`);
    const third = await server.send(`/sessions/${sessionId}/events`);
    expect(record.of("onEventStreamsChange").at(-1)).toEqual({ sessionId, change: "opened", open: 2 });
    await server.runtime.deleteSession(sessionId);
    await Promise.all([second.text(), third.text()]);
    expect(record.of("onEventStreamsChange").map(({ change, open }) => `${change} ${open}`)).toEqual([
      "opened 1",
      "closed 0",
      "opened 1",
      "opened 2",
      "closed 1",
      "closed 0",
    ]);
    await server.close();
  });
});

describe("telemetry hooks that fail", () => {
  it("run each tool's work once inside runToolCall, so a context the hook makes current is the tool's", async () => {
    const current = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const noted = defineTool({ name: "note", description: "Notes the context it runs in.", inputSchema: z.object({}) });
    const tools = [implement(noted, async () => seen.push(current.getStore()))];
    /** One call of `note` under `runToolCall`: what the tool saw, its result and the lines logged. */
    async function noteWith(runToolCall: RuntimeTelemetry["runToolCall"]) {
      seen.length = 0;
      const errors: string[] = [];
      const runtime = createAgentRuntime({
        model: scriptedModel([
          { toolCalls: [{ toolName: "note", input: {}, toolCallId: "call_note" }] },
          { text: "Noted." },
        ]),
        tools,
        store: memoryStore(),
        logger: { warn: () => {}, error: (line: string) => void errors.push(line) },
        telemetry: { runToolCall },
      });
      const { sessionId } = await runtime.createSession();
      await runtime.sendMessage(sessionId, "note it");
      await runtime.idle();
      const results = (await runtime.readEvents(sessionId, 0)).filter((event) => event.type === "tool.result");
      await runtime.close();
      return { seen: [...seen], outcomes: results.map((event) => event.outcome), errors };
    }

    expect(await noteWith((event, run) => current.run(event.toolCallId, run))).toEqual({
      seen: ["call_note"],
      outcomes: ["ok"],
      errors: [],
    });
    expect(
      await noteWith((_event, run) => {
        void run();
        return run();
      }),
    ).toEqual({ seen: [undefined], outcomes: ["ok"], errors: [] });
    const broken = await noteWith(() => {
      throw new Error("no tracer");
    });
    expect(broken).toMatchObject({ seen: [undefined], outcomes: ["ok"] });
    expect(broken.errors).toEqual([expect.stringContaining("telemetry hook runToolCall failed")]);
    const skipped = await noteWith(() => undefined);
    expect(skipped).toMatchObject({ seen: [undefined], outcomes: ["ok"] });
    expect(skipped.errors).toEqual([expect.stringContaining("returned without calling run()")]);
  });

  it("never break or stall a turn: each hook's failure is logged once, and a hook's promise is never awaited", async () => {
    const errors: string[] = [];
    const logger = { warn: () => {}, error: (line: string) => void errors.push(line) };
    const throwing = Object.fromEntries(
      kinds.map((kind) => [
        kind,
        kind === "onModelCallFinish"
          ? () => Promise.reject(new Error(`${kind} rejected`))
          : kind === "onToolCallStart"
            ? () => new Promise(() => {}) // never settles
            : () => {
                throw new Error(`${kind} threw`);
              },
      ]),
    ) as RuntimeTelemetry;
    const runtime = createAgentRuntime({
      model: scriptedModel([
        { toolCalls: [{ toolName: "lookup_weather", input: { city: "Paris" } }] },
        { text: "Pick one.", toolCalls: [pick] },
        { text: "Done." },
      ]),
      tools: serverTools,
      store: memoryStore(),
      logger,
      telemetry: throwing,
    });
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "go");
    await runtime.idle();
    const [request] = (await runtime.getSnapshot(sessionId)).pending;
    await runtime.respond(sessionId, [
      { requestId: request!.requestId, action: "accept", value: { templateId: "calm" } },
    ]);
    await runtime.idle();
    expect((await runtime.getSnapshot(sessionId)).status).toBe("idle");
    const events = await runtime.readEvents(sessionId, 0);
    expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(1);
    // Three model calls, two runs, …: one line per hook that failed (7 of them).
    await vi.waitFor(() => expect(errors).toHaveLength(7));
    for (const kind of kinds.filter(
      (kind) => !["onToolCallStart", "onStoreUnavailable", "onEventStreamsChange"].includes(kind),
    )) {
      expect(errors.filter((line) => line.includes(`telemetry hook ${kind} failed`))).toHaveLength(1);
    }
    expect(errors.find((line) => line.includes("onModelCallFinish"))).toContain("onModelCallFinish rejected");
    await runtime.close();
  });
});
