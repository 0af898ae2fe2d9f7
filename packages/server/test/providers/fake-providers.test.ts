import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4Message, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic, validateAnthropicMessages } from "./fake-anthropic.js";
import { checkOpenAIRequest, startFakeOpenAI, validateOpenAIMessages } from "./fake-openai.js";
import type { FakeProvider, FakeReplies } from "./fake-reply.js";
import { failure, say, stream, weather } from "./model-calls.js";

const running: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((fake) => fake.close()));
});

async function anthropic(replies: FakeReplies) {
  const fake = await startFakeAnthropic({ replies });
  running.push(fake);
  return { fake, model: createAnthropic({ baseURL: fake.baseURL, apiKey: "test" })("claude-x") };
}

async function openai(replies: FakeReplies) {
  const fake = await startFakeOpenAI({ replies });
  running.push(fake);
  return { fake, model: createOpenAI({ baseURL: fake.baseURL, apiKey: "test" }).chat("gpt-x") };
}

const call = (...toolCallIds: string[]): LanguageModelV4Message => ({
  role: "assistant",
  content: toolCallIds.map((toolCallId) => ({
    type: "tool-call",
    toolCallId,
    toolName: "weather",
    input: { city: "Paris" },
  })),
});
const result = (toolCallId: string): LanguageModelV4Message => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId, toolName: "weather", output: { type: "json", value: { celsius: 21 } } }],
});

function partsOf<T extends LanguageModelV4StreamPart["type"]>(parts: LanguageModelV4StreamPart[], type: T) {
  return parts.filter((part): part is Extract<LanguageModelV4StreamPart, { type: T }> => part.type === type);
}

describe("fake Anthropic Messages API", () => {
  it("listens on loopback at the /v1 base the provider package posts /messages under", async () => {
    const { fake, model } = await anthropic([{ text: "hi" }]);
    expect(fake.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await stream(model, [say("hello")]);
    expect(fake.requests).toMatchObject([{ method: "POST", path: "/v1/messages", status: 200 }]);
    expect(fake.requests[0]?.body).toMatchObject({ model: "claude-x", stream: true, max_tokens: expect.any(Number) });
  });

  it("streams text through as several text-delta parts and ends the turn", async () => {
    const { model } = await anthropic([{ text: "It is sunny in Paris today." }]);
    const parts = await stream(model, [say("weather?")]);
    const deltas = partsOf(parts, "text-delta").map((part) => part.delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("It is sunny in Paris today.");
    expect(partsOf(parts, "finish")[0]?.finishReason).toEqual({ unified: "stop", raw: "end_turn" });
  });

  it("streams parallel tool calls as tool-call parts with their ids, names and JSON inputs", async () => {
    const { model } = await anthropic([
      {
        text: "Checking.",
        toolCalls: [
          { id: "toolu_01Paris", name: "weather", input: { city: "Paris" } },
          { name: "weather", input: { city: "Rome", units: ["celsius"] } },
        ],
      },
    ]);
    const parts = await stream(model, [say("weather?")]);
    const calls = partsOf(parts, "tool-call");
    expect(calls.map((part) => [part.toolName, JSON.parse(part.input)])).toEqual([
      ["weather", { city: "Paris" }],
      ["weather", { city: "Rome", units: ["celsius"] }],
    ]);
    expect(calls[0]?.toolCallId).toBe("toolu_01Paris");
    expect(calls[1]?.toolCallId).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    expect(partsOf(parts, "tool-input-delta").filter((part) => part.id === "toolu_01Paris").length).toBeGreaterThan(1);
    expect(partsOf(parts, "finish")[0]?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });
  });

  it("streams thinking through as reasoning parts", async () => {
    const { fake, model } = await anthropic([{ reasoning: "They asked about Paris.", text: "Sunny." }]);
    const parts = await stream(model, [say("weather?")], {
      providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } },
    });
    expect(fake.requests[0]?.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(
      partsOf(parts, "reasoning-delta")
        .map((part) => part.delta)
        .join(""),
    ).toBe("They asked about Paris.");
    expect(parts.map((part) => part.type).indexOf("reasoning-end")).toBeLessThan(
      parts.map((part) => part.type).indexOf("text-start"),
    );
  });

  it("accepts a tool call followed by exactly one result, sent as a tool_result in the next user message", async () => {
    const { fake, model } = await anthropic([{ toolCalls: [{ id: "toolu_01", name: "weather", input: {} }] }]);
    await stream(model, [say("weather?"), call("toolu_01"), result("toolu_01")]);
    expect(fake.requests[0]?.status).toBe(200);
    expect(fake.requests[0]?.body).toMatchObject({
      messages: [
        { role: "user", content: [{ type: "text", text: "weather?" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_01", name: "weather", input: { city: "Paris" } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: '{"celsius":21}' }] },
      ],
    });
  });

  it("merges the results of parallel calls and the next user text into one user message, results first", async () => {
    const { fake, model } = await anthropic([{ text: "ok" }]);
    await stream(model, [
      say("weather?"),
      call("toolu_01", "toolu_02"),
      result("toolu_01"),
      result("toolu_02"),
      say("thanks"),
    ]);
    expect(fake.requests[0]?.status).toBe(200);
    expect(fake.requests[0]?.body).toMatchObject({
      messages: [
        { role: "user" },
        { role: "assistant" },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01", content: '{"celsius":21}' },
            { type: "tool_result", tool_use_id: "toolu_02", content: '{"celsius":21}' },
            { type: "text", text: "thanks" },
          ],
        },
      ],
    });
  });

  it.each([
    {
      case: "a call without a result",
      prompt: [say("weather?"), call("toolu_01"), say("never mind")],
      message:
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    },
    {
      case: "a result placed after the person's next message",
      prompt: [say("weather?"), call("toolu_01"), say("never mind"), result("toolu_01")],
      message:
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    },
    {
      case: "two results for one call",
      prompt: [say("weather?"), call("toolu_01"), result("toolu_01"), result("toolu_01")],
      message:
        "messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_01",
    },
    {
      case: "one tool_use id in two messages",
      prompt: [say("weather?"), call("toolu_01"), result("toolu_01"), call("toolu_01"), result("toolu_01")],
      message: "messages.3.content.0: `tool_use` ids must be unique",
    },
    {
      case: "one tool_use id twice in a message",
      prompt: [say("weather?"), call("toolu_01", "toolu_01"), result("toolu_01")],
      message: "messages.1.content.1: `tool_use` ids must be unique",
    },
    {
      case: "a result without its call",
      prompt: [
        say("weather?"),
        { role: "assistant", content: [{ type: "text", text: "Let me see." }] },
        result("toolu_09"),
      ],
      message:
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_09. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    },
  ] satisfies { case: string; prompt: LanguageModelV4Message[]; message: string }[])(
    "rejects $case with the API's 400",
    async ({ prompt, message }) => {
      const { fake, model } = await anthropic([{ text: "unused" }]);
      const error = await failure(stream(model, prompt));
      expect(error.statusCode).toBe(400);
      expect(error.message).toBe(message);
      expect(error.isRetryable).toBe(false);
      expect(JSON.parse(error.responseBody ?? "")).toEqual({
        type: "error",
        error: { type: "invalid_request_error", message },
      });
      expect(fake.requests).toMatchObject([{ status: 400, error: message }]);
    },
  );

  it("answers the i-th accepted request with reply i; a rejected request uses none", async () => {
    const { fake, model } = await anthropic([
      { toolCalls: [{ id: "toolu_01", name: "weather", input: {} }] },
      { text: "21°C." },
    ]);
    await stream(model, [say("weather?")]);
    await failure(stream(model, [say("weather?"), call("toolu_01"), say("hm?")]));
    const parts = await stream(model, [say("weather?"), call("toolu_01"), result("toolu_01")]);
    expect(
      partsOf(parts, "text-delta")
        .map((part) => part.delta)
        .join(""),
    ).toBe("21°C.");
    expect(fake.requests.map((request) => request.status)).toEqual([200, 400, 200]);
  });

  it("asks a reply function with the body and index of each accepted request", async () => {
    const seen: [unknown, number][] = [];
    const { model } = await anthropic((body, index) => {
      seen.push([(body as { model: unknown }).model, index]);
      return { text: `reply ${index}` };
    });
    await stream(model, [say("one")]);
    await stream(model, [say("two")]);
    expect(seen).toEqual([
      ["claude-x", 0],
      ["claude-x", 1],
    ]);
  });

  it("answers a request without stream with the whole message", async () => {
    const { model } = await anthropic([
      { text: "Checking.", toolCalls: [{ id: "toolu_01", name: "weather", input: { city: "Paris" } }] },
    ]);
    const { content, finishReason } = await model.doGenerate({ prompt: [say("weather?")], tools: [weather] });
    expect(content).toMatchObject([
      { type: "text", text: "Checking." },
      { type: "tool-call", toolCallId: "toolu_01", toolName: "weather", input: '{"city":"Paris"}' },
    ]);
    expect(finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });
  });

  it("answers 500 with an api_error that names the fix when the replies run out", async () => {
    const { fake, model } = await anthropic([]);
    const error = await failure(stream(model, [say("hello")]));
    expect(error.statusCode).toBe(500);
    expect(error.message).toMatch(/^startFakeAnthropic: no reply scripted for request 1; .*Add a reply/);
    expect(JSON.parse(error.responseBody ?? "")).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(fake.requests[0]?.status).toBe(500);
  });
});

describe("fake OpenAI Chat Completions API", () => {
  it("listens on loopback at the /v1 base the provider package posts /chat/completions under", async () => {
    const { fake, model } = await openai([{ text: "hi" }]);
    expect(fake.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await stream(model, [say("hello")]);
    expect(fake.requests).toMatchObject([{ method: "POST", path: "/v1/chat/completions", status: 200 }]);
    expect(fake.requests[0]?.body).toMatchObject({
      model: "gpt-x",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("streams text through as several text-delta parts, with usage, and stops", async () => {
    const { model } = await openai([{ text: "It is sunny in Paris today.", reasoning: "not streamed" }]);
    const parts = await stream(model, [say("weather?")]);
    const deltas = partsOf(parts, "text-delta").map((part) => part.delta);
    expect(deltas.filter((delta) => delta !== "").length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("It is sunny in Paris today.");
    expect(partsOf(parts, "reasoning-delta")).toEqual([]);
    const [finish] = partsOf(parts, "finish");
    expect(finish?.finishReason).toEqual({ unified: "stop", raw: "stop" });
    expect(finish?.usage.inputTokens.total).toBeGreaterThan(0);
  });

  it("streams parallel tool calls as tool-call parts with their ids, names and JSON inputs", async () => {
    const { model } = await openai([
      {
        toolCalls: [
          { id: "call_paris", name: "weather", input: { city: "Paris" } },
          { name: "weather", input: { city: "Rome", units: ["celsius"] } },
        ],
      },
    ]);
    const parts = await stream(model, [say("weather?")]);
    const calls = partsOf(parts, "tool-call");
    expect(calls.map((part) => [part.toolName, JSON.parse(part.input)])).toEqual([
      ["weather", { city: "Paris" }],
      ["weather", { city: "Rome", units: ["celsius"] }],
    ]);
    expect(calls[0]?.toolCallId).toBe("call_paris");
    expect(calls[1]?.toolCallId).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expect(partsOf(parts, "tool-input-delta").filter((part) => part.id === "call_paris").length).toBeGreaterThan(1);
    expect(partsOf(parts, "text-delta")).toEqual([]);
    expect(partsOf(parts, "finish")[0]?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
  });

  it("accepts a tool call followed by exactly one result, sent as one tool message per result", async () => {
    const { fake, model } = await openai([{ text: "21°C." }]);
    await stream(model, [say("weather?"), call("call_1", "call_2"), result("call_2"), result("call_1")]);
    expect(fake.requests[0]?.status).toBe(200);
    expect(fake.requests[0]?.body).toMatchObject({
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
            { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_2", content: '{"celsius":21}' },
        { role: "tool", tool_call_id: "call_1", content: '{"celsius":21}' },
      ],
    });
  });

  const unexpectedTool =
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
  it.each([
    {
      case: "a call without a result",
      prompt: [say("weather?"), call("call_1"), say("never mind")],
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
      param: "messages.[2].role",
    },
    {
      case: "two results for one call",
      prompt: [say("weather?"), call("call_1"), result("call_1"), result("call_1")],
      message: "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and messages[3].",
      param: "messages.[3].tool_call_id",
    },
    {
      case: "a result without its call",
      prompt: [say("weather?"), result("call_9")],
      message: unexpectedTool,
      param: "messages.[1].role",
    },
  ] satisfies { case: string; prompt: LanguageModelV4Message[]; message: string; param: string }[])(
    "rejects $case with the API's 400",
    async ({ prompt, message, param }) => {
      const { fake, model } = await openai([{ text: "unused" }]);
      const error = await failure(stream(model, prompt));
      expect(error.statusCode).toBe(400);
      expect(error.message).toBe(message);
      expect(error.isRetryable).toBe(false);
      expect(JSON.parse(error.responseBody ?? "")).toEqual({
        error: { message, type: "invalid_request_error", param, code: null },
      });
      expect(fake.requests).toMatchObject([{ status: 400, error: message }]);
    },
  );

  it("answers a request without stream with the whole completion", async () => {
    const { model } = await openai([
      { text: "Checking.", toolCalls: [{ id: "call_1", name: "weather", input: { city: "Paris" } }] },
    ]);
    const { content, finishReason } = await model.doGenerate({ prompt: [say("weather?")], tools: [weather] });
    expect(content).toMatchObject([
      { type: "text", text: "Checking." },
      { type: "tool-call", toolCallId: "call_1", toolName: "weather", input: '{"city":"Paris"}' },
    ]);
    expect(finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
  });

  it("answers 500 with a server_error that names the fix when the replies run out", async () => {
    const { model } = await openai([{ text: "one" }]);
    await stream(model, [say("hello")]);
    const error = await failure(stream(model, [say("again")]));
    expect(error.statusCode).toBe(500);
    expect(error.message).toMatch(/^startFakeOpenAI: no reply scripted for request 2; only 1 were given/);
    expect(JSON.parse(error.responseBody ?? "")).toMatchObject({ error: { type: "server_error" } });
  });
});

describe("validateAnthropicMessages", () => {
  const user = { role: "user", content: "hi" };
  const assistant = { role: "assistant", content: "hello" };
  const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "t", input: {} }] };
  it.each([
    { case: "a missing model", body: { max_tokens: 10, messages: [user] }, message: "model: Field required" },
    { case: "a missing max_tokens", body: { model: "m", messages: [user] }, message: "max_tokens: Field required" },
    {
      case: "an empty messages array",
      body: { model: "m", max_tokens: 10, messages: [] },
      message: "messages: at least one message is required",
    },
    {
      case: "two user turns in a row",
      body: { model: "m", max_tokens: 10, messages: [user, user] },
      message:
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    },
    {
      case: "an empty assistant turn that is not the last",
      body: { model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: [] }, user] },
      message: "messages.1: all messages must have non-empty content except for the optional final assistant message",
    },
    {
      case: "a tool_use in the last message",
      body: { model: "m", max_tokens: 10, messages: [user, toolUse] },
      message:
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    },
  ])("refuses $case", ({ body, message }) => {
    expect(validateAnthropicMessages(body)).toBe(message);
  });

  it("accepts alternating turns and an empty final assistant message", () => {
    expect(validateAnthropicMessages({ model: "m", max_tokens: 10, messages: [user, assistant, user] })).toBeNull();
    expect(
      validateAnthropicMessages({ model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: "" }] }),
    ).toBeNull();
  });
});

describe("validateOpenAIMessages", () => {
  const user = { role: "user", content: "hi" };
  const toolCall = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "t", arguments: "{}" } }],
  };
  it("refuses a missing model, a missing or empty messages array, and an unknown role", () => {
    expect(validateOpenAIMessages({ messages: [user] })).toBe("you must provide a model parameter");
    expect(checkOpenAIRequest({ model: "m" })).toEqual({
      message: "Missing required parameter: 'messages'.",
      param: "messages",
      code: "missing_required_parameter",
    });
    expect(checkOpenAIRequest({ model: "m", messages: [] })?.code).toBe("empty_array");
    expect(checkOpenAIRequest({ model: "m", messages: [{ role: "robot", content: "x" }] })?.param).toBe(
      "messages[0].role",
    );
  });

  it("refuses a call left unanswered at the end of the messages", () => {
    expect(checkOpenAIRequest({ model: "m", messages: [user, toolCall] })).toMatchObject({
      message: expect.stringMatching(/did not have response messages: call_1$/),
      param: "messages",
    });
  });

  it("accepts calls answered in any order before the next turn", () => {
    const twoCalls = { ...toolCall, tool_calls: [...toolCall.tool_calls, { ...toolCall.tool_calls[0], id: "call_2" }] };
    const answer = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
    expect(
      validateOpenAIMessages({ model: "m", messages: [user, twoCalls, answer("call_2"), answer("call_1"), user] }),
    ).toBeNull();
  });
});
