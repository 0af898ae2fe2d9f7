import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { Chat } from "@ai-sdk/react";
import { createAgentRuntime, createFetchHandler, memoryStore, scriptedModel } from "@hitl-kit/server";
import { type ChatInit, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";
import { checkOneResultPerCall, quiet } from "../../server/test/harness.js";
import { startFakeAnthropic } from "../../server/test/providers/fake-anthropic.js";
import { startFakeOpenAI } from "../../server/test/providers/fake-openai.js";
import type { FakeProvider, FakeReply } from "../../server/test/providers/fake-reply.js";
import { serverTools } from "../../server/test/tools.js";
import {
  type HitlChatTransport,
  hitlAnswersComplete,
  hitlChatTransport,
  memorySessionMap,
  type SessionMap,
} from "../src/index.js";

/** One model step of a test's script, in the fake providers' words. */
export type Reply = FakeReply;

/**
 * The ways a test's model can run: the scripted model in process, and the real provider
 * packages against local servers that refuse what Anthropic's and OpenAI's APIs refuse
 * (a tool call without exactly one result right after it).
 */
export const setups = [
  {
    name: "scripted model",
    async start(replies: Reply[], options: { chunkDelayMs?: number } = {}) {
      const model = scriptedModel(
        replies.map((reply) => ({
          ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
          ...(reply.text ? { text: reply.text } : {}),
          ...(reply.toolCalls
            ? { toolCalls: reply.toolCalls.map((call) => ({ toolName: call.name, input: call.input })) }
            : {}),
        })),
        options,
      );
      return { model, providerRequests: () => [] as { status: number; error?: string }[], close: async () => {} };
    },
  },
  {
    name: "Anthropic Messages API (@ai-sdk/anthropic, local)",
    start: (replies: Reply[], _options?: { chunkDelayMs?: number }) =>
      fake(startFakeAnthropic({ replies }), (baseURL) => createAnthropic({ baseURL, apiKey: "test" })("claude-test")),
  },
  {
    name: "OpenAI Chat Completions API (@ai-sdk/openai, local)",
    start: (replies: Reply[], _options?: { chunkDelayMs?: number }) =>
      fake(startFakeOpenAI({ replies }), (baseURL) => createOpenAI({ baseURL, apiKey: "test" }).chat("gpt-test")),
  },
];

async function fake(started: Promise<FakeProvider>, modelFor: (baseURL: string) => LanguageModelV4) {
  const provider = await started;
  return { model: modelFor(provider.baseURL), providerRequests: () => provider.requests, close: provider.close };
}

export type Setup = (typeof setups)[number];

/** Every chunk a transport streamed, and those the AI SDK's own chunk schema refused. */
export interface ChunkLog {
  chunks: UIMessageChunk[];
  refused: { chunk: unknown; error: string }[];
}

/**
 * A hitl-kit server in process (runtime, memory store, the real fetch handler with a fixed
 * caller) and what makes `Chat`s on it through the transport.
 */
export async function startApp(setup: Setup, replies: Reply[], options: { chunkDelayMs?: number } = {}) {
  const model = await setup.start(replies, options);
  const store = memoryStore();
  // A reply the fake has no script for is its 500, which the runtime retries: at once, here.
  const runtime = createAgentRuntime({
    model: model.model,
    tools: serverTools,
    store,
    logger: quiet,
    modelRetryDelayMs: 1,
  });
  const handler = createFetchHandler(runtime, { identify: () => "ada", rateLimit: false, heartbeatMs: 60_000 });
  const fetch = (input: string, init?: RequestInit) => handler(new Request(input, init));
  const log: ChunkLog = { chunks: [], refused: [] };
  const url = "http://127.0.0.1/api/agent";

  /** A transport whose streams are checked chunk by chunk against `uiMessageChunkSchema`. */
  function transport(
    sessions: SessionMap = memorySessionMap(),
    through: (request: typeof fetch) => typeof fetch = (direct) => direct,
  ): HitlChatTransport {
    const inner = hitlChatTransport({ url, fetch: through(fetch), sessions });
    const checked = (stream: ReadableStream<UIMessageChunk>) =>
      stream.pipeThrough(
        new TransformStream<UIMessageChunk, UIMessageChunk>({
          async transform(chunk, controller) {
            log.chunks.push(chunk);
            const result = await uiMessageChunkSchema().validate!(chunk);
            if (!result.success) log.refused.push({ chunk, error: String(result.error) });
            controller.enqueue(chunk);
          },
        }),
      );
    return {
      ...inner,
      sendMessages: async (options) => checked(await inner.sendMessages(options)),
      reconnectToStream: async (options) => {
        const stream = await inner.reconnectToStream(options);
        return stream && checked(stream);
      },
    };
  }

  function chat(options: Partial<ChatInit<UIMessage>> & { transport?: HitlChatTransport } = {}) {
    return new Chat<UIMessage>({ transport: transport(), sendAutomaticallyWhen: hitlAnswersComplete, ...options });
  }

  return {
    runtime,
    fetch,
    url,
    log,
    transport,
    chat,
    providerRequests: model.providerRequests,
    /** Every event of the session, and the calls that lack their one result (or have two). */
    async events(sessionId: string) {
      const events = await runtime.readEvents(sessionId, 0);
      return { events, problems: checkOneResultPerCall(events) };
    },
    async close() {
      await runtime.close();
      await model.close();
    },
  };
}

/** The last message's tool parts. */
export function toolParts(message: UIMessage | undefined) {
  return (message?.parts ?? []).filter((part) => part.type.startsWith("tool-")) as Array<
    Extract<UIMessage["parts"][number], { toolCallId: string }>
  >;
}
