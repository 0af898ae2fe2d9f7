import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentRuntimeOptions, createAgentRuntime } from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, startServer, tempDir } from "./harness.js";
import {
  type FakeResponses,
  type ResponsesReply,
  startFakeOpenAIResponses,
} from "./providers/fake-openai-responses.js";
import { serverTools } from "./tools.js";

/**
 * What is particular to OpenAI's Responses API (`openai(modelId)`), against a local API that
 * keeps items as the real one does; the ways a parked request ends are in
 * provider-conformance.test.ts.
 */
const pick = { name: "pick_template", input: { templates: ["a", "b"] } };
const gpt5 = (baseURL: string) => createOpenAI({ baseURL, apiKey: "test" }).responses("gpt-5");
type Body = { store?: boolean; input: { type?: string }[] };

let fake: FakeResponses | undefined;
let server: ReturnType<typeof startServer> | undefined;
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await server?.close();
  await fake?.close();
  for (const dir of dirs.splice(0)) dir.cleanup();
  server = undefined;
  fake = undefined;
});

async function begin(replies: ResponsesReply[], callOptions?: AgentRuntimeOptions["callOptions"]) {
  fake = await startFakeOpenAIResponses({ replies });
  server = startServer(gpt5(fake.baseURL), callOptions ? { callOptions } : {});
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "make me a poster" });
  await server.runtime.idle();
  return { id, server, fake, pending: (await server.snapshot(id)).pending };
}

async function expectAccepted(id: string, requests: number) {
  await server!.runtime.idle();
  expect(fake!.requests.map((request) => [request.status, request.error])).toEqual(
    Array(requests).fill([200, undefined]),
  );
  expect(checkOneResultPerCall(await server!.events(id))).toEqual([]);
}

describe.each([
  { name: "by default", callOptions: undefined },
  { name: "with store: true", callOptions: { providerOptions: { openai: { store: true } } } },
])("an empty message item after the reasoning, $name", ({ callOptions }) => {
  // The reasoning item must be sent back followed by the item that followed it, here a
  // message with no text: dropping it as empty text failed every later call with a 400.
  it("before a tool call: the answer's step is accepted", async () => {
    const { id, pending } = await begin(
      [{ reasoning: "Let me ask.", text: "", toolCalls: [pick] }, { text: "Done." }],
      callOptions,
    );
    await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    await expectAccepted(id, 2);
  });

  it("cut off by max_output_tokens as the message began: the next message is accepted", async () => {
    const { id } = await begin(
      [{ reasoning: "Thinking hard.", text: "", incomplete: true }, { text: "Hello." }],
      callOptions,
    );
    await server!.call("POST", `/sessions/${id}/messages`, { text: "are you there?" });
    await expectAccepted(id, 2);
  });
});

describe("OpenAI keeps nothing the session needs", () => {
  it("by default: an answer given after OpenAI dropped the turn's items (30 days on, or another project's key) goes through", async () => {
    const first = await startFakeOpenAIResponses({
      replies: [{ reasoning: "Hmm.", text: "Pick one.", toolCalls: [pick] }],
    });
    const dir = tempDir();
    dirs.push(dir);
    const path = `${dir.path}/hitl.sqlite`;
    const store = sqliteStore(path);
    const before = createAgentRuntime({ model: gpt5(first.baseURL), tools: serverTools, store, logger: quiet });
    const { sessionId } = await before.createSession({ owner: "ada" });
    await before.sendMessage(sessionId, "poster");
    await before.idle();
    const [request] = (await before.getSnapshot(sessionId)).pending;
    await before.close();
    await store.close();
    await first.close();

    // An API that holds none of the items the first one made.
    fake = await startFakeOpenAIResponses({ replies: [{ text: "Done." }] });
    server = startServer(gpt5(fake.baseURL), { store: sqliteStore(path), http: { identify: () => "ada" } });
    await server.call("POST", `/sessions/${sessionId}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    await expectAccepted(sessionId, 1);
    const sent = fake.requests[0]!.body as Body;
    expect(sent.store).toBe(false);
    expect(sent.input.map((item) => item.type)).not.toContain("item_reference");
    expect(sent.input.map((item) => item.type)).toContain("reasoning");
  });

  it("keeps store: true when the app asks for it", async () => {
    const { fake } = await begin([{ text: "Hi." }], { providerOptions: { openai: { store: true } } });
    expect((fake.requests[0]!.body as Body).store).toBe(true);
  });
});
