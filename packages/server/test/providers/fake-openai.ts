import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import {
  type ProviderDialect,
  type Rejection,
  startFakeProviderServer,
  writeEventStream,
  writeJson,
} from "./fake-provider-server.js";
import {
  estimateTokens,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeReply,
  splitIntoDeltas,
} from "./fake-reply.js";
import { checkOpenAIRequest } from "./validate-openai-messages.js";

export { checkOpenAIRequest, type OpenAIRequestError, validateOpenAIMessages } from "./validate-openai-messages.js";

/**
 * Starts a local server that behaves like the OpenAI Chat Completions API
 * (`POST /v1/chat/completions`), streamed or not. It refuses what the real API refuses, with
 * its 400 body, before replying. A reply's `reasoning` is dropped: Chat Completions streams none.
 *
 * @example
 * const fake = await startFakeOpenAI({ replies: [{ text: "Hello" }] });
 * const model = createOpenAI({ baseURL: fake.baseURL, apiKey: "test" }).chat("gpt-x");
 * // … model.doStream({ prompt }) …
 * await fake.close();
 */
export function startFakeOpenAI(options: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProviderServer(openAIDialect, options);
}

/** How OpenAI's APIs answer an error (`{ error: { message, type, param, code } }`) and a missing key: both fakes' own. */
export const openAIErrors: Pick<ProviderDialect, "errorBody" | "authenticate"> = {
  errorBody: (rejection: Rejection) => ({
    error: {
      message: rejection.message,
      type: rejection.status >= 500 ? "server_error" : "invalid_request_error",
      param: rejection.param ?? null,
      code: rejection.code ?? null,
    },
  }),
  authenticate: (headers: IncomingMessage["headers"]) =>
    headers.authorization?.startsWith("Bearer ")
      ? null
      : {
          status: 401,
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        },
};

const openAIDialect: ProviderDialect = {
  name: "startFakeOpenAI",
  path: "/v1/chat/completions",
  ...openAIErrors,
  validate: (body: unknown) => {
    const error = checkOpenAIRequest(body);
    return error === null ? null : { status: 400, ...error };
  },
  respond: async (body, reply, response) => {
    const completion = toCompletion(body, reply);
    if (body.stream === true) await writeEventStream(response, toChunks(body, completion), reply.stallAfter);
    else writeJson(response, completion);
  },
};

type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

type Completion = {
  id: string;
  object: "chat.completion";
  created: number;
  model: unknown;
  system_fingerprint: string;
  choices: [
    {
      index: 0;
      message: { role: "assistant"; content: string | null; refusal: null; tool_calls?: ToolCall[] };
      logprobs: null;
      finish_reason: "tool_calls" | "stop";
    },
  ];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
};

/** The whole reply as the non-streaming API returns it; the stream is derived from it. */
function toCompletion(body: Record<string, unknown>, reply: FakeReply): Completion {
  const toolCalls = (reply.toolCalls ?? []).map(
    (call): ToolCall => ({
      id: call.id ?? openAIId("call_", 24),
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
    }),
  );
  const prompt_tokens = estimateTokens(body.messages);
  const completion_tokens = estimateTokens([reply.text, toolCalls]);
  return {
    id: openAIId("chatcmpl-", 29),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    system_fingerprint: "fp_fake",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? (toolCalls.length > 0 ? null : ""),
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
  };
}

/**
 * The streamed form: `chat.completion.chunk`s whose first delta carries the role, then text
 * pieces, then per tool call a chunk with its index, id and name and chunks of its arguments;
 * a chunk with the finish reason; with `stream_options.include_usage`, a last chunk with no
 * choices and the usage (every other chunk then says `usage: null`); and `data: [DONE]`.
 */
function toChunks(body: Record<string, unknown>, completion: Completion): string[] {
  const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const { id, created, model, system_fingerprint } = completion;
  const frame = (fields: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint, ...fields })}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
    frame({
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
      ...(includeUsage ? { usage: null } : {}),
    });

  const [choice] = completion.choices;
  const text = choice.message.content;
  const toolCalls = choice.message.tool_calls ?? [];
  const chunks: string[] = [];
  const toolCallDeltas = toolCalls.flatMap((call, index) => [
    { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
    ...splitIntoDeltas(call.function.arguments).map((piece) => ({ index, function: { arguments: piece } })),
  ]);

  if (text === null) {
    // A reply of tool calls only opens with the first call in the role chunk, as the API does.
    chunks.push(chunk({ role: "assistant", content: null, tool_calls: toolCallDeltas.slice(0, 1), refusal: null }));
    toolCallDeltas.shift();
  } else {
    chunks.push(chunk({ role: "assistant", content: "", refusal: null }));
    for (const content of splitIntoDeltas(text)) chunks.push(chunk({ content }));
  }
  for (const toolCall of toolCallDeltas) chunks.push(chunk({ tool_calls: [toolCall] }));
  chunks.push(chunk({}, choice.finish_reason));
  if (includeUsage) chunks.push(frame({ choices: [], usage: completion.usage }));
  chunks.push("data: [DONE]\n\n");
  return chunks;
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** An id in OpenAI's style: a prefix and random alphanumerics (`call_abc123…`, `chatcmpl-…`). */
function openAIId(prefix: string, length: number): string {
  return `${prefix}${Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % 62]).join("")}`;
}
