import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4Message, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeResponses, type ResponsesReply, startFakeOpenAIResponses } from "./fake-openai-responses.js";
import { failure, say, stream } from "./model-calls.js";

const running: FakeResponses[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((fake) => fake.close()));
});

async function responses(replies: ResponsesReply[], modelId = "gpt-5") {
  const fake = await startFakeOpenAIResponses({ replies });
  running.push(fake);
  return { fake, model: createOpenAI({ baseURL: fake.baseURL, apiKey: "test" }).responses(modelId) };
}

/** The assistant message an AI SDK loop would append for these parts (as generateText keeps them). */
function assistantOf(parts: LanguageModelV4StreamPart[]): LanguageModelV4Message {
  const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
  const open = new Map<string, { type: "text" | "reasoning"; text: string; providerOptions?: unknown }>();
  for (const part of parts) {
    if (part.type === "text-start" || part.type === "reasoning-start") {
      const block = {
        type: part.type === "text-start" ? ("text" as const) : ("reasoning" as const),
        text: "",
        providerOptions: part.providerMetadata,
      };
      open.set(part.id, block);
      content.push(block as never);
    } else if (part.type === "text-delta" || part.type === "reasoning-delta") {
      open.get(part.id)!.text += part.delta;
    } else if (part.type === "text-end" || part.type === "reasoning-end") {
      if (part.providerMetadata) open.get(part.id)!.providerOptions = part.providerMetadata;
    } else if (part.type === "tool-call") {
      content.push({
        type: "tool-call",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: JSON.parse(part.input),
        providerOptions: part.providerMetadata,
      } as never);
    }
  }
  return { role: "assistant", content };
}

describe("fake OpenAI Responses API", () => {
  it("streams reasoning, text and a tool call the provider package parses, with item ids", async () => {
    const { fake, model } = await responses([
      {
        reasoning: "Think.",
        text: "Checking.",
        toolCalls: [{ id: "call_1", name: "weather", input: { city: "Paris" } }],
      },
    ]);
    const parts = await stream(model, [say("weather?")], { providerOptions: { openai: { reasoningSummary: "auto" } } });
    expect(fake.requests[0]).toMatchObject({ path: "/v1/responses", status: 200 });
    const types = parts.map((p) => p.type);
    expect(types).toContain("reasoning-start");
    expect(
      parts
        .filter((p) => p.type === "reasoning-delta")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("Think.");
    expect(
      parts
        .filter((p) => p.type === "text-delta")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("Checking.");
    const call = parts.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({
      toolCallId: "call_1",
      toolName: "weather",
      input: '{"city":"Paris"}',
      providerMetadata: { openai: { itemId: expect.stringMatching(/^fc_/) } },
    });
    expect(parts.find((p) => p.type === "finish")).toMatchObject({ finishReason: { unified: "tool-calls" } });
  });

  it("accepts the next step as the AI SDK sends it (item references), and refuses a call without output", async () => {
    const { fake, model } = await responses([
      { toolCalls: [{ id: "call_1", name: "weather", input: { city: "Paris" } }] },
      { text: "21." },
      { text: "x" },
    ]);
    const first = await stream(model, [say("weather?")]);
    const assistant = assistantOf(first);
    const result: LanguageModelV4Message = {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "call_1", toolName: "weather", output: { type: "json", value: { c: 21 } } },
      ],
    };
    await stream(model, [say("weather?"), assistant, result]);
    expect(fake.requests[1]?.status).toBe(200);
    expect((fake.requests[1]!.body as { input: unknown[] }).input).toMatchObject([
      { role: "user" },
      { type: "item_reference", id: expect.stringMatching(/^rs_/) },
      { type: "function_call", call_id: "call_1" },
      { type: "function_call_output", call_id: "call_1" },
    ]);
    const error = await failure(stream(model, [say("weather?"), assistant, say("hm")]));
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe("No tool output found for function call call_1.");
  });

  it("refuses a reference to an unknown item, a reasoning item without what followed it, and a forged encrypted_content", async () => {
    const { fake, model } = await responses([{ text: "Hello." }]);
    await stream(model, [say("hi")]);
    const [rs, msg] = [...fake.storage.items.keys()];
    const unknown = await failure(
      stream(model, [
        say("hi"),
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "", providerOptions: { openai: { itemId: rs } } },
            { type: "text", text: "Hello.", providerOptions: { openai: { itemId: "msg_nope" } } },
          ],
        },
      ]),
    );
    expect(unknown.message).toBe("Item with id 'msg_nope' not found.");
    const orphan = await failure(
      stream(model, [
        say("hi"),
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "", providerOptions: { openai: { itemId: rs } } },
            { type: "text", text: "Hello." },
          ],
        },
        say("more"),
      ]),
    );
    expect(orphan.message).toBe(`Item '${rs}' of type 'reasoning' was provided without its required following item.`);
    expect(msg).toMatch(/^msg_/);
    const forged = await failure(
      stream(
        model,
        [
          say("hi"),
          {
            role: "assistant",
            content: [
              {
                type: "reasoning",
                text: "",
                providerOptions: { openai: { itemId: rs, reasoningEncryptedContent: "gAAAAAforged.sig" } },
              },
              { type: "text", text: "Hello." },
            ],
          },
          say("more"),
        ],
        { providerOptions: { openai: { store: false } } },
      ),
    );
    expect(forged.message).toMatch(/could not be verified/);
  });

  it("with store: false sends encrypted reasoning back inline, and refuses references to unstored items", async () => {
    const { fake, model } = await responses([
      { toolCalls: [{ id: "call_1", name: "weather", input: { city: "Paris" } }] },
      { text: "21." },
      { text: "x" },
    ]);
    const opts = { providerOptions: { openai: { store: false } } };
    const first = await stream(model, [say("weather?")], opts);
    expect(fake.requests[0]?.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    const assistant = assistantOf(first);
    const result: LanguageModelV4Message = {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "call_1", toolName: "weather", output: { type: "json", value: { c: 21 } } },
      ],
    };
    await stream(model, [say("weather?"), assistant, result], opts);
    expect(fake.requests[1]?.status).toBe(200);
    expect((fake.requests[1]!.body as { input: unknown[] }).input).toMatchObject([
      { role: "user" },
      { type: "reasoning", id: expect.stringMatching(/^rs_/), encrypted_content: expect.stringMatching(/^gAAAAA/) },
      { type: "function_call", call_id: "call_1" },
      { type: "function_call_output", call_id: "call_1" },
    ]);
    const error = await failure(stream(model, [say("weather?"), assistant, result]));
    expect(error.message).toMatch(
      /^Item with id 'rs_[0-9a-f]+' not found. Items are not persisted when `store` is set to false/,
    );
  });

  it("fails a stream with response.failed as a retryable APICallError before output", async () => {
    const { model } = await responses([{ text: "never", failAfter: 2 }]);
    const error = await failure(stream(model, [say("hi")]));
    expect(error.isRetryable).toBe(true);
  });
});

describe("the AI SDK's own loop against the fake (the reference hitl-kit should match)", () => {
  it("keeps an empty message item (text '' with its itemId) and the API accepts the next step", async () => {
    const { generateText, stepCountIs, tool, jsonSchema } = await import("ai");
    const { fake, model } = await responses([
      {
        reasoning: "Let me check.",
        text: "",
        toolCalls: [{ id: "call_1", name: "weather", input: { city: "Paris" } }],
      },
      { text: "21." },
    ]);
    const result = await generateText({
      model,
      prompt: "weather?",
      tools: {
        weather: tool({
          inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } } }),
          execute: async () => ({ c: 21 }),
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("21.");
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(
      (fake.requests[1]!.body as { input: { type?: string }[] }).input.map((item) => item.type ?? "message"),
    ).toEqual(["message", "item_reference", "item_reference", "function_call", "function_call_output"]);
  });
});
