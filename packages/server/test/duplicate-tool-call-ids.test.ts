import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findTranscriptError } from "../src/runtime/transcript.js";
import { checkOneResultPerCall, startServer } from "./harness.js";
import { recordingModel } from "./recording-model.js";
import { executions } from "./tools.js";

let server: ReturnType<typeof startServer>;
afterEach(() => server?.close());
beforeEach(() => {
  executions.length = 0;
});

const weather = (city: string, toolCallId: string) => ({ toolName: "lookup_weather", input: { city }, toolCallId });
const pick = (toolCallId: string) => ({ toolName: "pick_template", input: { templates: ["a", "b"] }, toolCallId });

/** The tool call ids of a prompt's assistant messages, and the ids its tool results answer, in order. */
function idsOf(prompt: LanguageModelV4Message[] | undefined) {
  const calls: string[] = [];
  const results: string[] = [];
  for (const message of prompt ?? []) {
    for (const part of message.content) {
      if (typeof part === "string") continue;
      if (part.type === "tool-call") calls.push(part.toolCallId);
      if (part.type === "tool-result") results.push(part.toolCallId);
    }
  }
  return { calls, results };
}

async function run(script: Parameters<typeof recordingModel>[0]) {
  const recording = recordingModel(script);
  const warnings: unknown[][] = [];
  server = startServer(recording.model, { logger: { warn: (...args) => warnings.push(args), error: () => {} } });
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "weather?" });
  await server.runtime.idle();
  return { id, prompts: recording.prompts, warnings };
}

describe("a model that repeats a tool call id", () => {
  it("runs both calls of one reply that share an id, each with its one result", async () => {
    const { id, prompts, warnings } = await run([
      { toolCalls: [weather("Oslo", "call_1"), weather("Rome", "call_1")] },
      { text: "Oslo and Rome are mild." },
    ]);
    expect(executions.map((execution) => execution.input)).toEqual([{ city: "Oslo" }, { city: "Rome" }]);
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    const called = events.flatMap((event) => (event.type === "tool.called" ? [event.toolCallId] : []));
    expect(called[0]).toBe("call_1");
    expect(called[1]).toMatch(/^[a-zA-Z0-9]{9}$/); // the one form every provider takes (Mistral: exactly 9)
    // The model sees each call once, with its result right after, under the id the runtime uses.
    expect(idsOf(prompts[1])).toEqual({ calls: called, results: called });
    expect(findTranscriptError(prompts[1]!)).toBeUndefined();
    expect(warnings).toEqual([
      [expect.stringContaining(`"call_1", which is empty or already used; it runs as ${called[1]}`)],
    ]);
    expect((await server.snapshot(id)).status).toBe("idle");
  });

  it("parks one call and runs the other when a parked and a server call share an id", async () => {
    const { id, prompts } = await run([{ toolCalls: [pick("call_1"), weather("Oslo", "call_1")] }, { text: "Done." }]);
    const parked = await server.snapshot(id);
    expect(parked.status).toBe("waiting");
    expect(parked.pending.map((request) => request.toolName)).toEqual(["pick_template"]);
    expect(parked.pending[0]?.toolCallId).toBe("call_1");
    const answer = { requestId: parked.pending[0]!.requestId, action: "accept", value: { templateId: "a" } };
    expect((await server.call("POST", `/sessions/${id}/responses`, { responses: [answer] })).status).toBe(202);
    await server.runtime.idle();

    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result").map((event) => event.outcome)).toEqual(["ok", "ok"]);
    const { calls, results } = idsOf(prompts[1]);
    expect(new Set(calls).size).toBe(2);
    expect(results.toSorted()).toEqual(calls.toSorted());
  });

  it("gives a call that reuses an id from an earlier step, or has no id, an id of its own", async () => {
    const { id, prompts } = await run([
      { toolCalls: [weather("Oslo", "call_1")] },
      { toolCalls: [weather("Rome", "call_1"), weather("Paris", "")] },
      { text: "Done." },
    ]);
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    const called = events.flatMap((event) => (event.type === "tool.called" ? [event.toolCallId] : []));
    expect(called).toHaveLength(3);
    expect(new Set(called).size).toBe(3);
    expect(called.every((callId) => callId !== "")).toBe(true);
    expect(idsOf(prompts[2])).toEqual({ calls: called, results: called });
    expect(findTranscriptError(prompts[2]!)).toBeUndefined();
  });
});

describe("findTranscriptError", () => {
  const call = (...ids: string[]): LanguageModelV4Message => ({
    role: "assistant",
    content: ids.map((toolCallId) => ({ type: "tool-call", toolCallId, toolName: "t", input: {} })),
  });
  const results = (...ids: string[]): LanguageModelV4Message => ({
    role: "tool",
    content: ids.map((toolCallId) => ({
      type: "tool-result",
      toolCallId,
      toolName: "t",
      output: { type: "json", value: null },
    })),
  });
  const user: LanguageModelV4Message = { role: "user", content: [{ type: "text", text: "hi" }] };

  it("refuses a tool call id used twice, in one message or in two", () => {
    expect(findTranscriptError([user, call("a", "a"), results("a")])).toBe("messages.1: tool call id a is used twice.");
    expect(findTranscriptError([user, call("a"), results("a"), call("a"), results("a")])).toBe(
      "messages.3: tool call id a is used twice.",
    );
    expect(findTranscriptError([user, call("a", "b"), results("b", "a")])).toBeUndefined();
  });
});
