import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { keepLastMessages } from "../src/index.js";
import { startServer } from "./harness.js";
import { recordingModel } from "./recording-model.js";

let server: ReturnType<typeof startServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const person = (text: string): LanguageModelV4Message => ({ role: "user", content: [{ type: "text", text }] });
const says = (text: string): LanguageModelV4Message => ({ role: "assistant", content: [{ type: "text", text }] });
const calls = (id: string): LanguageModelV4Message => ({
  role: "assistant",
  content: [{ type: "tool-call", toolCallId: id, toolName: "pick_template", input: {} }],
});
const answers = (id: string): LanguageModelV4Message => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: id, toolName: "pick_template", output: { type: "json", value: {} } }],
});
const roles = (messages: readonly LanguageModelV4Message[]) => messages.map((message) => message.role);

/** Sends `texts` one turn after another, each waited for. */
async function turns(texts: string[]) {
  const id = await server!.session();
  for (const text of texts) {
    await server!.call("POST", `/sessions/${id}/messages`, { text });
    await server!.runtime.idle();
  }
  return id;
}

describe("keepLastMessages", () => {
  it("keeps about the last n messages, from a message of the person's", () => {
    const transcript = [person("one"), says("1"), person("two"), says("2"), person("three")];
    expect(keepLastMessages(3)(transcript)).toEqual(transcript.slice(2));
    expect(keepLastMessages(4)(transcript)).toEqual(transcript.slice(2));
    expect(keepLastMessages(10)(transcript)).toBe(transcript);
  });

  it("never keeps a result without its call", () => {
    const transcript = [person("one"), calls("c1"), answers("c1"), says("picked"), person("two")];
    expect(keepLastMessages(3)(transcript)).toEqual([person("two")]);
  });

  it("keeps a turn longer than n whole, from its message", () => {
    const transcript = [person("old"), says("0"), person("go"), calls("c1"), answers("c1"), calls("c2"), answers("c2")];
    expect(keepLastMessages(2)(transcript)).toEqual(transcript.slice(2));
  });

  it("refuses a count that is not a whole number of 1 or more", () => {
    for (const count of [0, -1, 1.5, Number.NaN]) expect(() => keepLastMessages(count)).toThrow(RangeError);
  });
});

describe("the runtime's prepareTranscript", () => {
  it("shapes what each model call is sent, and the store keeps the whole transcript", async () => {
    const recording = recordingModel((context) => ({ text: `You said ${context.lastUserText}.` }));
    const seen: { sessionId: string; turnId: string; step: number }[] = [];
    const keep = keepLastMessages(3);
    server = startServer(recording.model, {
      prepareTranscript: (messages, call) => {
        seen.push(call);
        return keep(messages);
      },
    });
    const id = await turns(["one", "two", "three"]);
    expect(recording.prompts.map(roles)).toEqual([
      ["user"],
      ["user", "assistant", "user"],
      ["user", "assistant", "user"],
    ]);
    expect(recording.prompts[2]![0]).toEqual(person("two"));
    expect(roles(await server.store.readTranscript(id))).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(seen.map((call) => ({ sessionId: call.sessionId, step: call.step }))).toEqual(
      Array.from({ length: 3 }, () => ({ sessionId: id, step: 1 })),
    );
    expect(new Set(seen.map((call) => call.turnId)).size).toBe(3);
  });

  it("fails the turn with transcript_invalid, the model not called, when it returns calls without their results", async () => {
    const recording = recordingModel((context) =>
      context.lastUserText === "pick" && context.step === 0
        ? { toolCalls: [{ toolName: "pick_template", input: { templates: ["a"] } }] }
        : { text: "Done." },
    );
    server = startServer(recording.model, {
      prepareTranscript: (messages) => messages.filter((message) => message.role !== "tool"),
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "pick" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    await server.runtime.idle();
    expect(recording.prompts).toHaveLength(1);
    expect((await server.snapshot(id)).error).toEqual({
      code: "transcript_invalid",
      message: expect.stringMatching(
        /^Refused to call the model with what prepareTranscript returned: .*have no result/,
      ),
    });
  });
});
