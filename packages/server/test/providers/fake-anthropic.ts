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
import { validateAnthropicMessages } from "./validate-anthropic-messages.js";

export { validateAnthropicMessages } from "./validate-anthropic-messages.js";

/**
 * Starts a local server that behaves like the Anthropic Messages API (`POST /v1/messages`),
 * streamed or not. It refuses what the real API refuses, with its 400 body, before replying.
 *
 * @example
 * const fake = await startFakeAnthropic({ replies: [{ toolCalls: [{ name: "pick_template", input: {} }] }] });
 * const model = createAnthropic({ baseURL: fake.baseURL, apiKey: "test" })("claude-x");
 * // … model.doStream({ prompt }) …
 * await fake.close();
 */
export function startFakeAnthropic(options: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProviderServer(anthropicDialect, options);
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const anthropicDialect: ProviderDialect = {
  name: "startFakeAnthropic",
  path: "/v1/messages",
  errorBody: (rejection: Rejection) => ({
    type: "error",
    error: { type: ERROR_TYPES[rejection.status] ?? "api_error", message: rejection.message },
  }),
  authenticate: (headers: IncomingMessage["headers"]) =>
    headers["x-api-key"] || headers.authorization ? null : { status: 401, message: "x-api-key header is required" },
  validate: (body: unknown) => {
    const message = validateAnthropicMessages(body);
    return message === null ? null : { status: 400, message };
  },
  respond: async (body, reply, response) => {
    const message = toMessage(body, reply);
    if (body.stream === true) await writeEventStream(response, overloaded(toEvents(message), reply), reply.stallAfter);
    else writeJson(response, message);
  },
};

type ContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

type Message = {
  id: string;
  type: "message";
  role: "assistant";
  model: unknown;
  content: ContentBlock[];
  stop_reason: "tool_use" | "end_turn";
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: 0; cache_read_input_tokens: 0 };
};

/** The whole reply as the non-streaming API returns it; the stream is derived from it. */
function toMessage(body: Record<string, unknown>, reply: FakeReply): Message {
  const content: ContentBlock[] = [];
  if (reply.reasoning) content.push({ type: "thinking", thinking: reply.reasoning, signature: anthropicId("sig_") });
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    content.push({ type: "tool_use", id: call.id ?? anthropicId("toolu_"), name: call.name, input: call.input });
  }
  return {
    id: anthropicId("msg_"),
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: estimateTokens(body.messages),
      output_tokens: estimateTokens(content),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** The streamed form: message_start, one start/deltas/stop run per block, message_delta, message_stop. */
function toEvents(message: Message): string[] {
  const events: string[] = [];
  const emit = (type: string, data: Record<string, unknown> = {}) =>
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

  emit("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  for (const [index, block] of message.content.entries()) {
    const opening =
      block.type === "thinking"
        ? { type: "thinking", thinking: "", signature: "" }
        : block.type === "text"
          ? { type: "text", text: "" }
          : { ...block, input: {} };
    emit("content_block_start", { index, content_block: opening });
    if (index === 0) emit("ping");
    const delta = (value: Record<string, unknown>) => emit("content_block_delta", { index, delta: value });
    if (block.type === "thinking") {
      for (const thinking of splitIntoDeltas(block.thinking)) delta({ type: "thinking_delta", thinking });
      delta({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "text") {
      for (const text of splitIntoDeltas(block.text)) delta({ type: "text_delta", text });
    } else {
      // The API opens every tool input with an empty partial_json before the JSON itself.
      for (const partial_json of ["", ...splitIntoDeltas(JSON.stringify(block.input ?? {}))]) {
        delta({ type: "input_json_delta", partial_json });
      }
    }
    emit("content_block_stop", { index });
  }
  emit("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  emit("message_stop");
  return events;
}

/** The frames cut at `overloadAfter` and ended by the error event the API sends when it is overloaded mid-stream. */
function overloaded(frames: string[], reply: FakeReply): string[] {
  if (reply.overloadAfter === undefined) return frames;
  const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  return [...frames.slice(0, reply.overloadAfter), `event: error\ndata: ${JSON.stringify(error)}\n\n`];
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** An id in Anthropic's style: a prefix, `01`, then 22 base62 characters (`toolu_01A09q90qw90lq917835lq9`). */
function anthropicId(prefix: string): string {
  return `${prefix}01${Array.from(randomBytes(22), (byte) => BASE62[byte % 62]).join("")}`;
}
