import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRuntime, implement, memoryStore, type RuntimeTool, scriptedModel } from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, startServer, tempDir } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";
import { pickTemplate } from "./tools.js";

let server: ReturnType<typeof startServer>;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
});

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };

async function parked(recording: ReturnType<typeof recordingModel>, options = {}) {
  server = startServer(recording.model, options);
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  await server.runtime.idle();
  return { id, pending: (await server.snapshot(id)).pending };
}

describe("a new message while requests are parked", () => {
  it("cancels them with a result saying the person moved on, then runs the message", async () => {
    const recording = recordingModel((context) =>
      context.lastUserText === "go" ? { toolCalls: [pick] } : { text: `You said: ${context.lastUserText}` },
    );
    const { id, pending } = await parked(recording);
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "never mind" })).status).toBe(202);
    await server.runtime.idle();

    const events = await server.events(id);
    expect(events.find((event) => event.type === "input.resolved")).toMatchObject({
      requestId: pending[0]!.requestId,
      action: "cancel",
      reason: "The person sent a new message instead of answering.",
      reasonCode: "new_message",
    });
    expect(checkOneResultPerCall(events)).toEqual([]);
    const prompt = recording.prompts[1]!;
    // Between the results and the message, a word of the model's own: Gemini and Mistral refuse a message right after results.
    expect(prompt.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(prompt[3]).toMatchObject({ content: [{ type: "text", text: "(Stopped here.)" }] });
    expect(lastToolResults(prompt)[0]).toMatchObject({
      output: { type: "text", value: expect.stringContaining("new message") },
    });
    const snapshot = await server.snapshot(id);
    expect(snapshot.pending).toEqual([]);
    expect(snapshot.messages.at(-1)?.parts).toEqual([{ type: "text", text: "You said: never mind" }]);

    // The code is kept with the resolution: a snapshot's settled request and a refusal carry it.
    expect(snapshot.resolved).toEqual([
      expect.objectContaining({ resolution: expect.objectContaining({ reasonCode: "new_message" }) }),
    ]);
    const stale = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.resolution).toMatchObject({ action: "cancel", reasonCode: "new_message" });
  });

  it("answers 409 instead when the runtime is told to reject such messages", async () => {
    const { id } = await parked(recordingModel([{ toolCalls: [pick] }]), { whileParked: "reject" });
    const before = await server.events(id);
    const response = await server.call("POST", `/sessions/${id}/messages`, { text: "hello?" });
    expect(response.status).toBe(409);
    expect(response.body.error.message).toMatch(/waiting for an answer/);
    expect(await server.events(id)).toEqual(before);
  });
});

describe("cancel", () => {
  it("cancels a parked turn with one cancelled result per call, saying so as a running turn's Stop does; a stale answer then gets 409", async () => {
    const { id, pending } = await parked(recordingModel([{ toolCalls: [pick] }]));
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    const events = await server.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    const reason = "The person stopped the turn.";
    expect(events.find((event) => event.type === "input.resolved")).toMatchObject({ action: "cancel", reason });
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "cancelled", output: { reason } }),
    ]);
    const stale = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.resolution.action).toBe("cancel");
    expect(transcriptRoles(await server.store.readTranscript(id))).toEqual(["user", "assistant", "tool"]);
  });

  it("stops a streaming turn and completes its message", async () => {
    server = startServer(scriptedModel([{ text: "word ".repeat(200) }], { chunkDelayMs: 5 }));
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await vi.waitFor(async () => expect((await server.snapshot(id)).messages).toHaveLength(2));
    await server.call("POST", `/sessions/${id}/cancel`, {});
    await server.runtime.idle();
    const snapshot = await server.snapshot(id);
    expect(snapshot.status).toBe("idle");
    expect(snapshot.messages.every((message) => message.status === "complete")).toBe(true);
    expect((await server.events(id)).at(-1)).toMatchObject({ type: "turn.cancelled" });
  });

  it("ends a turn whose Stop lands as its model step ends, instead of parking it", async () => {
    // The cancel holds the session while the step's last write waits for it: keeping the
    // cancel takes a while here, as on a busy database.
    const dir = tempDir();
    const sqlite = sqliteStore(join(dir.path, "hitl.sqlite"));
    const slowMark: typeof sqlite = {
      ...sqlite,
      async write(sessionId, batch) {
        if (batch.session?.cancelRequested) await new Promise((resolve) => setTimeout(resolve, 150));
        return sqlite.write(sessionId, batch);
      },
      close: async () => {
        await sqlite.close();
        dir.cleanup();
      },
    };
    const recording = recordingModel([{ text: "one two three four five", toolCalls: [pick] }], { chunkDelayMs: 10 });
    server = startServer(recording.model, { store: slowMark });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await vi.waitFor(
      async () => expect((await server.events(id)).some((event) => event.type === "text.delta")).toBe(true),
      {
        interval: 1,
      },
    );
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    await server.runtime.idle();
    const snapshot = await server.snapshot(id);
    expect(snapshot).toMatchObject({ status: "idle", pending: [] });
    const events = await server.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    // The step's call never reached the log: it has no result to owe.
    expect(events.filter((event) => event.type === "tool.called")).toEqual([]);
    expect(snapshot.messages.at(-1)).toMatchObject({ role: "assistant", status: "complete" });
  });

  it("goes on when a parked turn's kept cancel was never carried out and the person answers it", async () => {
    // An instance kept the cancel, then died before it saw the turn park (another drove it).
    const { id, pending } = await parked(recordingModel([{ toolCalls: [pick] }, { text: "Made it." }]));
    const { turnId } = (await server.store.getSession(id))!;
    await server.store.write(id, { session: { cancelRequested: turnId } });
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", turnId });
    expect((await server.snapshot(id)).messages.at(-1)?.parts).toEqual([{ type: "text", text: "Made it." }]);
  });

  it("refuses a message while a turn runs with 409", async () => {
    server = startServer(scriptedModel([{ text: "word ".repeat(100) }], { chunkDelayMs: 5 }));
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    const second = await server.call("POST", `/sessions/${id}/messages`, { text: "again" });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("turn_running");
    await server.call("POST", `/sessions/${id}/cancel`, {});
  });
});

describe("a tool that does not stop when the turn is stopped", () => {
  const slowJob = defineTool({ name: "slow_job", description: "Takes a while.", inputSchema: z.object({}) });
  /** A tool that ignores its signal and ends only when the test says so, with its own result. */
  function stubborn() {
    let finish!: (value: { done: boolean }) => void;
    const finished = new Promise<{ done: boolean }>((resolve) => (finish = resolve));
    const tool = implement(slowJob, () => finished);
    return { tool, finish };
  }
  const twoSteps = () => scriptedModel([{ toolCalls: [{ toolName: "slow_job", input: {} }] }, { text: "Done." }]);

  async function stoppedWhileRunning(options: { abortGraceMs?: number; tool: RuntimeTool }) {
    const warnings: unknown[][] = [];
    server = startServer(twoSteps(), {
      tools: [options.tool],
      logger: { warn: (...args: unknown[]) => warnings.push(args), error: () => {} },
      ...(options.abortGraceMs === undefined ? {} : { abortGraceMs: options.abortGraceMs }),
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await vi.waitFor(async () =>
      expect((await server.events(id)).some((event) => event.type === "tool.called")).toBe(true),
    );
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    return { id, warnings };
  }

  /** The stubborn tool ends `afterMs` into the Stop, still running: its own result is the call's one, and the turn ends cancelled. */
  async function endsWithOwnResult(id: string, finish: (value: { done: boolean }) => void, afterMs: number) {
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    expect((await server.snapshot(id)).status).toBe("running");
    finish({ done: true });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({ outcome: "ok", output: { done: true } }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
  }

  it("ends the turn once the grace is over, the call's one result saying it may have completed, and drops its late result", async () => {
    const { tool, finish } = stubborn();
    const { id, warnings } = await stoppedWhileRunning({ tool, abortGraceMs: 100 });
    await vi.waitFor(async () => expect((await server.snapshot(id)).status).toBe("idle"), { timeout: 2000 });
    const ended = await server.events(id);
    expect(ended.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({
        outcome: "cancelled",
        output: {
          reason: expect.stringMatching(/stopped the turn while this tool ran.*may or may not have completed/),
        },
      }),
    ]);
    expect(ended.at(-1)).toMatchObject({ type: "turn.cancelled" });

    // The session takes the next message; the tool's own result, coming now, is not a second one.
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "again" })).status).toBe(202);
    finish({ done: true });
    const call = ended.find((event) => event.type === "tool.result")!;
    const turn = ended.at(-1) as { turnId: string };
    await vi.waitFor(() =>
      expect(warnings.map((args) => String(args[0]))).toContainEqual(
        `hitl-kit: session ${id} turn ${turn.turnId} call ${call.toolCallId} (slow_job): the tool ended after its turn was stopped without it; its result was dropped.`,
      ),
    );
    await server.runtime.idle();
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result" && event.outcome === "ok")).toEqual([]);
  });

  it("waits for the tool however long it runs with abortGraceMs Infinity, and refuses a grace below 0", async () => {
    const { tool, finish } = stubborn();
    const { id } = await stoppedWhileRunning({ tool, abortGraceMs: Number.POSITIVE_INFINITY });
    await endsWithOwnResult(id, finish, 100);
    for (const abortGraceMs of [-1, Number.NaN]) {
      expect(() => startServer(twoSteps(), { tools: [tool], abortGraceMs })).toThrow(/abortGraceMs must be 0 or more/);
    }
  });

  it("keeps the result of a tool that ends within the grace, and lets a deletion through a tool that never ends, saying the session was deleted", async () => {
    const { tool, finish } = stubborn();
    const { id } = await stoppedWhileRunning({ tool });
    await endsWithOwnResult(id, finish, 50);

    // A tool that never ends holds a deletion no longer than the grace.
    const never = implement(slowJob, () => new Promise<never>(() => {}));
    await server.close();
    server = startServer(twoSteps(), { tools: [never], abortGraceMs: 100 });
    const other = await server.session();
    await server.call("POST", `/sessions/${other}/messages`, { text: "go" });
    await vi.waitFor(async () =>
      expect((await server.events(other)).some((event) => event.type === "tool.called")).toBe(true),
    );
    const streamed: string[] = [];
    server.runtime.subscribe(other, (event) => {
      if (event.type === "tool.result") streamed.push(`${event.outcome}: ${JSON.stringify(event.output)}`);
    });
    expect((await server.call("DELETE", `/sessions/${other}`)).status).toBe(204);
    expect((await server.call("GET", `/sessions/${other}`)).status).toBe(404);
    expect(streamed).toEqual([
      'cancelled: {"reason":"The session was deleted while this tool ran, and it had not stopped 100 ms later: it may or may not have completed."}',
    ]);
  });
});

describe("expiry", () => {
  it("settles an expired request as expired, by the timer, with one result", async () => {
    const recording = recordingModel([{ toolCalls: [pick] }, { text: "Too late then." }]);
    // Long enough to read it open on a loaded machine; the timer settles it soon after.
    const { id, pending } = await parked(recording, { expireAfter: 500 });
    expect(pending[0]?.expiresAt).toEqual(expect.any(String));
    await vi.waitFor(async () => expect((await server.store.getOpenRequests(id)).length).toBe(0), { timeout: 5000 });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.find((event) => event.type === "tool.result")).toMatchObject({ outcome: "expired" });
    expect(lastToolResults(recording.prompts[1])[0]).toMatchObject({
      output: { type: "text", value: expect.stringContaining("expired") },
    });
    expect(checkOneResultPerCall(events)).toEqual([]);
  });

  it("settles an expired request on read, even when no timer fired", async () => {
    const { id, pending } = await parked(recordingModel([{ toolCalls: [pick] }, { text: "ok" }]), {
      expireAfter: () => -1,
    });
    expect(pending).toEqual([]); // the snapshot read itself expired it
    const requested = (await server.events(id)).find((event) => event.type === "input.requested");
    const requestId = requested?.type === "input.requested" ? requested.requests[0]!.requestId : "";
    const late = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId, action: "cancel" }],
    });
    expect(late.status).toBe(409);
    expect(late.body.error.details.resolution.action).toBe("expire");
  });
});

describe("an answer schema that changed while a request was parked", () => {
  it("is caught: an answer that fits the old schema but not the new one gets a 422 that says so", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    const first = sqliteStore(path);
    const before = createAgentRuntime({
      model: scriptedModel([{ toolCalls: [pick] }]),
      tools: [pickTemplate],
      store: first,
      logger: quiet,
    });
    const { sessionId } = await before.createSession();
    await before.sendMessage(sessionId, "go");
    await before.idle();
    const [request] = (await before.getSnapshot(sessionId)).pending;
    await before.close();
    await first.close(); // a file belongs to one store at a time

    const stricter = defineClientTool({
      ...pickTemplate,
      answerSchema: z.object({ templateId: z.enum(["bold", "calm"]) }),
    });
    const store = sqliteStore(path);
    const after = createAgentRuntime({ model: scriptedModel([]), tools: [stricter], store, logger: quiet });
    const refused = after.respond(sessionId, [
      { requestId: request!.requestId, action: "accept", value: { templateId: "a" } },
    ]);
    await expect(refused).rejects.toMatchObject({
      code: "invalid_answer",
      message: expect.stringContaining("changed since this request was parked"),
    });
    expect((await after.getSnapshot(sessionId)).pending).toHaveLength(1);
    await after.close();
    await store.close();
    dir.cleanup();
  });
});

describe("the transcript check", () => {
  it("refuses to call the model with a call that has no result, and fails the turn", async () => {
    const recording = recordingModel([{ text: "never sent" }]);
    server = startServer(recording.model);
    const id = await server.session();
    await server.store.write(id, {
      transcript: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "pick_template", input: {} }] },
      ],
    });
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    expect(recording.prompts).toEqual([]);
    const failed = (await server.events(id)).at(-1);
    expect(failed).toMatchObject({ type: "turn.failed", error: { code: "transcript_invalid" } });
    expect(JSON.stringify(failed)).toContain("c1");
  });
});

describe("failures", () => {
  it("fails the turn when the model fails, and the session takes the next message", async () => {
    let calls = 0;
    const flaky: LanguageModelV4 = {
      ...scriptedModel([{ text: "Recovered." }]),
      async doStream(options) {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("Overloaded"), { statusCode: 529 });
        return scriptedModel([{ text: "Recovered." }]).doStream(options);
      },
    };
    server = startServer(flaky);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    expect((await server.snapshot(id)).error).toEqual({
      code: "model_529",
      message: "The model provider is overloaded or unavailable right now; try again in a moment.",
    });
    await server.call("POST", `/sessions/${id}/messages`, { text: "again" });
    await server.runtime.idle();
    const snapshot = await server.snapshot(id);
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.messages.at(-1)?.parts).toEqual([{ type: "text", text: "Recovered." }]);
  });

  it("fails a turn that passes maxSteps, with every call answered", async () => {
    const loop = { toolName: "lookup_weather", input: { city: "Oslo" } };
    server = startServer(
      scriptedModel(() => ({ toolCalls: [loop] })),
      { maxSteps: 3 },
    );
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.failed", error: { code: "max_steps" } });
    expect(events.filter((event) => event.type === "tool.called")).toHaveLength(3);
    expect(checkOneResultPerCall(events)).toEqual([]);
  });
});

describe("tool configuration", () => {
  const model = scriptedModel([]);
  const store = memoryStore();
  const resolveLike = defineClientTool({
    name: "both",
    description: "d",
    inputSchema: z.object({}),
    answerSchema: z.object({}),
  });
  const serverTool = defineTool({ name: "server_tool", description: "d", inputSchema: z.object({}) });

  it("refuses a tool with both an executor and client resolution, naming it", () => {
    const both = { definition: resolveLike, execute: () => 1, resolve: () => 2 };
    expect(() => createAgentRuntime({ model, store, tools: [both] })).toThrow(
      /Tool "both" has both an executor and client resolution/,
    );
  });

  it("refuses two tools with one name, naming it", () => {
    expect(() => createAgentRuntime({ model, store, tools: [pickTemplate, pickTemplate] })).toThrow(
      /Two tools are named "pick_template"/,
    );
  });

  it("refuses a server tool with no executor, and a client tool with one", () => {
    expect(() => createAgentRuntime({ model, store, tools: [serverTool] })).toThrow(
      /"server_tool" is a server tool with no executor/,
    );
    const executed = { definition: resolveLike, execute: () => 1 };
    expect(() => createAgentRuntime({ model, store, tools: [executed] })).toThrow(
      /"both" is a client tool and cannot have an executor/,
    );
    expect(() => createAgentRuntime({ model, store, tools: [implement(serverTool, () => 1)] })).not.toThrow();
  });

  it("refuses a tool made without defineClientTool whose answer schema the browser could not check as the server does", () => {
    const handMade = { ...resolveLike, answerSchema: { type: "object", if: { $dynamicRef: "#a" } } };
    expect(() => createAgentRuntime({ model, store, tools: [handMade] })).toThrow(
      /^The answer schema of both uses "\$dynamicRef" at #\/if/,
    );
  });
});

function transcriptRoles(messages: { role: string }[]) {
  return messages.map((message) => message.role);
}

describe("a closed runtime", () => {
  it("refuses what reaches the store with 503 unavailable, over HTTP and in process, and changes nothing", async () => {
    const { id, pending } = await parked(recordingModel([{ toolCalls: [pick] }]));
    await server.runtime.close();
    const answer = { responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }] };
    const calls: [string, string, unknown?][] = [
      ["POST", "/sessions", {}],
      ["GET", "/sessions"],
      ["GET", `/sessions/${id}`],
      ["GET", `/sessions/${id}/events`],
      ["POST", `/sessions/${id}/messages`, { text: "again" }],
      ["POST", `/sessions/${id}/responses`, answer],
      ["POST", `/sessions/${id}/cancel`, {}],
      ["DELETE", `/sessions/${id}`],
    ];
    for (const [method, path, body] of calls) {
      const reply = await server.call(method, path, body);
      expect([method, path, reply.status, reply.body?.error?.code]).toEqual([method, path, 503, "unavailable"]);
    }
    await expect(server.runtime.createSession()).rejects.toMatchObject({ code: "unavailable", status: 503 });
    expect(await server.store.listSessions()).toHaveLength(1);
    expect((await server.store.getOpenRequests(id)).map((request) => request.requestId)).toEqual([
      pending[0]!.requestId,
    ]);
  });
});

describe("a Stop for a turn no driver runs any more", () => {
  it("gives a call the dead process left running a cancelled result saying it may or may not have completed, and logs it", async () => {
    const warnings: string[] = [];
    const store = memoryStore();
    server = startServer(scriptedModel([{ text: "unused" }]), {
      store,
      logger: { warn: (line: unknown) => warnings.push(String(line)), error: () => {} },
    });
    await server.runtime.ready;
    const id = await server.session();
    // What a process that died while the tool ran leaves: the step open, the call executing, no driver.
    await store.write(id, {
      events: [
        { type: "turn.started", turnId: "t9", cause: "message" },
        { type: "message.started", messageId: "m1", role: "assistant" },
        { type: "tool.called", messageId: "m1", toolCallId: "c1", toolName: "slow_job", input: {} },
        { type: "message.completed", messageId: "m1" },
      ],
      transcript: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "slow_job", input: {} }] },
      ],
      toolCalls: [
        {
          toolCallId: "c1",
          turnId: "t9",
          step: 1,
          index: 0,
          toolName: "slow_job",
          messageId: "m1",
          input: {},
          state: "executing",
        },
      ],
      session: { status: "running", turnId: "t9", step: 1, stepOpen: true },
    });

    await server.runtime.cancel(id);
    const events = await server.events(id);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([
      expect.objectContaining({
        toolCallId: "c1",
        outcome: "cancelled",
        output: {
          reason: expect.stringMatching(/stopped the turn while this tool ran.*may or may not have completed/),
        },
      }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled", turnId: "t9" });
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(warnings).toContainEqual(
      expect.stringMatching(/call c1 \(slow_job\).*may or may not have completed: check whether it took effect/),
    );
  });
});
