import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentRuntime } from "../src/index.js";
import { toolCallId } from "../src/runtime/ids.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, startServer, tempDir } from "./harness.js";
import { startFakeAnthropic } from "./providers/fake-anthropic.js";
import { startFakeGoogle } from "./providers/fake-google.js";
import { startFakeMistral } from "./providers/fake-mistral.js";
import { startFakeOpenAI } from "./providers/fake-openai.js";
import { startFakeOpenAICompatible } from "./providers/fake-openai-compatible.js";
import { startFakeOpenAIResponses } from "./providers/fake-openai-responses.js";
import type { FakeProvider, FakeProviderOptions, FakeReply } from "./providers/fake-reply.js";
import { serverTools } from "./tools.js";

/**
 * The runtime with the real provider packages, pointed at local servers that validate
 * tool-call/result pairing the way the providers' APIs do: any request they would reject
 * fails the test. Each scenario is a way a parked request can end.
 */
const providers: {
  name: string;
  start: (options: FakeProviderOptions) => Promise<FakeProvider>;
  model: (baseURL: string) => LanguageModelV4;
  /** An id the provider's own calls could have, for the model that repeats one. */
  dupId?: string;
}[] = [
  {
    name: "Anthropic Messages API (@ai-sdk/anthropic)",
    start: startFakeAnthropic,
    model: (baseURL: string) => createAnthropic({ baseURL, apiKey: "test" })("claude-test"),
  },
  {
    name: "OpenAI Chat Completions API (@ai-sdk/openai)",
    start: startFakeOpenAI,
    model: (baseURL: string) => createOpenAI({ baseURL, apiKey: "test" }).chat("gpt-test"),
  },
  // What `openai(modelId)` is. A reasoning model's reasoning must go back with what followed it.
  ...["gpt-5", "gpt-4.1"].map((modelId) => ({
    name: `OpenAI Responses API, ${modelId} (@ai-sdk/openai)`,
    start: startFakeOpenAIResponses,
    model: (baseURL: string) => createOpenAI({ baseURL, apiKey: "test" }).responses(modelId),
  })),
  // Gemini: roles alternate, and Gemini 3's function calls go back with their thought signatures.
  ...["gemini-3-pro-preview", "gemini-2.5-flash"].map((modelId) => ({
    name: `Google Gemini, ${modelId} (@ai-sdk/google)`,
    start: (options: FakeProviderOptions) => startFakeGoogle({ ...options, model: modelId }),
    model: (baseURL: string) => createGoogle({ baseURL, apiKey: "test" })(modelId),
  })),
  // Mistral: no user message right after tool results, and tool call ids of exactly 9 letters
  // and digits (the provider package renames a repeated id itself, with `generateId`).
  {
    name: "Mistral (@ai-sdk/mistral)",
    start: startFakeMistral,
    model: (baseURL: string) =>
      createMistral({ baseURL, apiKey: "test", generateId: toolCallId })("mistral-large-latest"),
    dupId: "dup000001",
  },
  // Local servers (vLLM, Ollama, LM Studio), each streaming tool calls its own way.
  ...(
    [
      ["as OpenAI does", {}],
      ["without tool call ids", { ids: "missing" }],
      [
        "with ids counted from call_0 in each reply, whole calls without index (Ollama)",
        { ids: "numbered", arguments: "whole-no-index", reasoningContent: true },
      ],
      ["with every id call_0", { ids: "constant", arguments: "whole" }],
    ] as const
  ).map(([how, quirks]) => ({
    name: `OpenAI-compatible server streaming ${how} (@ai-sdk/openai-compatible)`,
    start: (options: FakeProviderOptions) => startFakeOpenAICompatible({ ...options, quirks }),
    model: (baseURL: string) => createOpenAICompatible({ name: "local", baseURL }).chatModel("local-model"),
  })),
];

const pick = { name: "pick_template", input: { templates: ["a", "b"] } };
const weather = { name: "lookup_weather", input: { city: "Oslo" } };
const publish = { name: "publish_poster", input: { title: "Spring" } };

describe.each(providers)("$name", ({ start, model: modelFor, dupId = "dup_1" }) => {
  let fake: FakeProvider;
  let server: ReturnType<typeof startServer>;
  afterEach(async () => {
    await server?.close();
    await fake?.close();
  });

  async function begin(replies: FakeReply[], options: Parameters<typeof startServer>[1] = {}) {
    fake = await start({ replies });
    server = startServer(modelFor(fake.baseURL), options);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "make me a poster" });
    await server.runtime.idle();
    return { id, pending: (await server.snapshot(id)).pending };
  }

  const respond = (id: string, responses: unknown[]) => server.call("POST", `/sessions/${id}/responses`, { responses });
  const send = (id: string, text: string) => server.call("POST", `/sessions/${id}/messages`, { text });

  async function expectAccepted(id: string, requests: number) {
    await server.runtime.idle();
    expect(fake.requests.map((request) => [request.status, request.error])).toEqual(
      Array(requests).fill([200, undefined]),
    );
    expect(checkOneResultPerCall(await server.events(id))).toEqual([]);
    expect((await server.snapshot(id)).status).toBe("idle");
    // Gemini takes a lost thought signature's stand-in, which the provider package sends in its place.
    if ("skippedSignatures" in fake) expect(fake.skippedSignatures).toBe(0);
  }

  it("one parked call, answered", async () => {
    const { id, pending } = await begin([{ text: "Pick one.", toolCalls: [pick] }, { text: "Done." }]);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }]);
    await expectAccepted(id, 2);
    expect((await server.snapshot(id)).messages.at(-1)?.parts).toEqual([{ type: "text", text: "Done." }]);
  });

  it("the same answer twice", async () => {
    const { id, pending } = await begin([{ toolCalls: [pick] }, { text: "Done." }]);
    const answer = { requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } };
    expect((await respond(id, [answer])).status).toBe(202);
    expect((await respond(id, [answer])).status).toBe(200);
    await expectAccepted(id, 2);
  });

  it("parallel calls: one parked, one executed", async () => {
    const { id, pending } = await begin([{ toolCalls: [weather, pick] }, { text: "Done." }]);
    expect(pending).toHaveLength(1);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "b" } }]);
    await expectAccepted(id, 2);
  });

  it("a user message while parked", async () => {
    const { id } = await begin([{ toolCalls: [pick] }, { text: "Sure, something else." }]);
    expect((await send(id, "actually, never mind")).status).toBe(202);
    await expectAccepted(id, 2);
  });

  it("cancel, then a stale answer, then the conversation goes on", async () => {
    const { id, pending } = await begin([{ toolCalls: [pick] }, { text: "Okay." }]);
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    const stale = await respond(id, [
      { requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } },
    ]);
    expect(stale.status).toBe(409);
    await send(id, "hello again");
    await expectAccepted(id, 2);
  });

  it("reload mid-park: a new runtime on the same store takes the answer", async () => {
    fake = await start({ replies: [{ toolCalls: [pick] }, { text: "Done." }] });
    const dir = tempDir();
    const path = `${dir.path}/hitl.sqlite`;
    const first = sqliteStore(path);
    const before = createAgentRuntime({
      model: modelFor(fake.baseURL),
      tools: serverTools,
      store: first,
      logger: quiet,
    });
    const { sessionId } = await before.createSession({ owner: "ada" });
    await before.sendMessage(sessionId, "poster");
    await before.idle();
    const [request] = (await before.getSnapshot(sessionId)).pending;
    await before.close();
    await first.close(); // a file belongs to one store at a time

    server = startServer(modelFor(fake.baseURL), { store: sqliteStore(path), http: { identify: () => "ada" } });
    await respond(sessionId, [{ requestId: request!.requestId, action: "accept", value: { templateId: "a" } }]);
    await expectAccepted(sessionId, 2);
    dir.cleanup();
  });

  it("two calls with one id, and that id again in the next step", async () => {
    const { id, pending } = await begin([
      {
        toolCalls: [
          { ...weather, id: dupId },
          { ...pick, id: dupId },
        ],
      },
      { toolCalls: [{ ...weather, id: dupId }] },
      { text: "Done." },
    ]);
    expect(pending.map((request) => request.toolName)).toEqual(["pick_template"]);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }]);
    await expectAccepted(id, 3);
    const called = (await server.events(id)).flatMap((event) => (event.type === "tool.called" ? [event] : []));
    expect(called.map((event) => event.toolName)).toEqual(["lookup_weather", "pick_template", "lookup_weather"]);
    expect(called[0]?.toolCallId).toBe(dupId);
    expect(new Set(called.map((event) => event.toolCallId)).size).toBe(3);
  });

  it("a denial, then the model continues", async () => {
    const { id, pending } = await begin([{ toolCalls: [publish] }, { text: "Not published." }]);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "decline", reason: "wrong title" }]);
    await expectAccepted(id, 2);
  });

  it("expiry", async () => {
    const { id } = await begin([{ toolCalls: [pick] }, { text: "Moving on." }], { expireAfter: 30 });
    await vi.waitFor(async () => expect(fake.requests).toHaveLength(2), { timeout: 3000 });
    await expectAccepted(id, 2);
    expect((await server.events(id)).find((event) => event.type === "tool.result")).toMatchObject({
      outcome: "expired",
    });
  });
});

describe("the fake providers would catch a broken transcript", () => {
  it.each(providers)(
    "$name rejects a tool call without a result with the provider's 400",
    async ({ start, model: modelFor }) => {
      const fake = await start({ replies: [{ text: "unreachable" }] });
      const model: LanguageModelV4 = modelFor(fake.baseURL);
      await expect(
        model.doStream({
          prompt: [
            { role: "user", content: [{ type: "text", text: "hi" }] },
            {
              role: "assistant",
              content: [{ type: "tool-call", toolCallId: "call_1", toolName: "pick_template", input: {} }],
            },
            { role: "user", content: [{ type: "text", text: "anyone?" }] },
          ],
        }),
      ).rejects.toMatchObject({ statusCode: 400 });
      await fake.close();
    },
  );
});
