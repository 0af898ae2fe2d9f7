import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { openAIErrors } from "./fake-openai.js";
import { type ProviderDialect, startFakeProviderServer, writeJson } from "./fake-provider-server.js";
import { estimateTokens, type FakeProvider, type FakeReply, splitIntoDeltas } from "./fake-reply.js";
import {
  checkResponsesRequest,
  encryptReasoning,
  type OutputItem,
  type ResponsesStorage,
  responsesStorage,
} from "./validate-openai-responses.js";

/** A reply of the Responses fake: a FakeReply, and ways a response can fail mid-stream. */
export type ResponsesReply = FakeReply & {
  /** Streams this many frames, then `response.failed` with a `server_error`, and ends. */
  failAfter?: number;
  /** Ends with `response.incomplete` (`max_output_tokens`) instead of `response.completed`. */
  incomplete?: boolean;
};

export type FakeResponsesOptions = {
  replies: ResponsesReply[] | ((body: unknown, index: number) => ResponsesReply);
  /**
   * Whether the model reasons (emits a reasoning item before its output, as gpt-5 and the
   * o-series do). By default, when the model id starts with `gpt-5` or `o`.
   */
  reasoning?: boolean;
};

/** A running fake Responses API, with what it keeps. */
export type FakeResponses = FakeProvider & { storage: ResponsesStorage };

/**
 * Starts a local server that behaves like the OpenAI Responses API (`POST /v1/responses`),
 * streamed or not. It keeps what the API keeps (stored items, for `item_reference`) and
 * refuses what the API refuses, with its 400 body, before
 * replying. A reasoning model's reply opens with a reasoning item: its summary (the reply's
 * `reasoning`) is streamed only when the request asks for one (`reasoning.summary`), and its
 * `encrypted_content` is sent only when asked for (`include: ["reasoning.encrypted_content"]`).
 *
 * @example
 * const fake = await startFakeOpenAIResponses({ replies: [{ text: "Hello" }] });
 * const model = createOpenAI({ baseURL: fake.baseURL, apiKey: "test" }).responses("gpt-5");
 * // … model.doStream({ prompt }) …
 * await fake.close();
 */
export async function startFakeOpenAIResponses(options: FakeResponsesOptions): Promise<FakeResponses> {
  const storage = responsesStorage();
  const dialect: ProviderDialect = {
    name: "startFakeOpenAIResponses",
    path: "/v1/responses",
    ...openAIErrors,
    validate: (body: unknown) => {
      const checked = checkResponsesRequest(body, storage);
      return checked && { status: checked.error.status ?? 400, ...checked.error };
    },
    respond: async (body, reply, response) => {
      const declared = new Set(
        (Array.isArray(body.tools) ? body.tools : []).map((tool: { name?: unknown }) => String(tool.name)),
      );
      for (const call of reply.toolCalls ?? []) {
        if (!declared.has(call.name)) {
          throw new Error(
            `startFakeOpenAIResponses: the reply calls ${call.name}, which the request does not declare.`,
          );
        }
      }
      const reasons = options.reasoning ?? /^(gpt-5|o\d)/.test(String(body.model));
      await answer(body, reply as ResponsesReply, response, storage, reasons);
    },
  };
  const fake = await startFakeProviderServer(dialect, {
    replies: options.replies as FakeReply[] | ((body: unknown, index: number) => FakeReply),
  });
  return { ...fake, storage };
}

async function answer(
  body: Record<string, unknown>,
  reply: ResponsesReply,
  response: ServerResponse,
  storage: ResponsesStorage,
  reasons: boolean,
) {
  const responseId = openAIId("resp_", 48);
  const stored = body.store !== false;
  const include = Array.isArray(body.include) ? body.include : [];
  const withEncrypted = include.includes("reasoning.encrypted_content");
  const summaryAsked = (body.reasoning as { summary?: unknown } | undefined)?.summary != null;

  const output: OutputItem[] = [];
  if (reasons) {
    const id = openAIId("rs_", 48);
    // Paragraphs of the reply's reasoning are summary parts, as the API splits its summaries.
    const summary =
      summaryAsked && reply.reasoning
        ? reply.reasoning.split("\n\n").map((text) => ({ type: "summary_text", text }))
        : [];
    output.push({
      id,
      type: "reasoning",
      summary,
      ...(withEncrypted ? { encrypted_content: encryptReasoning(id, responseId) } : {}),
    });
  }
  if (reply.text !== undefined) {
    output.push({
      id: openAIId("msg_", 48),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: reply.text }],
    });
  }
  for (const call of reply.toolCalls ?? []) {
    output.push({
      id: openAIId("fc_", 48),
      type: "function_call",
      status: "completed",
      arguments: JSON.stringify(call.input ?? {}),
      call_id: call.id ?? openAIId("call_", 24),
      name: call.name,
    });
  }
  const usage = {
    input_tokens: estimateTokens(body.input),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: estimateTokens(output),
    output_tokens_details: { reasoning_tokens: reasons ? 64 : 0 },
    total_tokens: estimateTokens(body.input) + estimateTokens(output),
  };
  const created_at = Math.floor(Date.now() / 1000);
  const base = {
    id: responseId,
    object: "response",
    created_at,
    model: body.model,
    previous_response_id: body.previous_response_id ?? null,
    store: stored,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tools: body.tools ?? [],
    reasoning: reasons
      ? { effort: "medium", summary: null, ...(body.reasoning as object) }
      : { effort: null, summary: null },
    service_tier: "default",
    error: null,
    incomplete_details: null,
  };
  const record = (item: OutputItem, index: number) => storage.items.set(item.id, { item, responseId, index, stored });
  storage.responses.set(responseId, { id: responseId, stored, output });

  if (body.stream !== true) {
    output.forEach(record);
    writeJson(response, { ...base, status: "completed", output, usage });
    return;
  }

  let sequence = 0;
  const frames: string[] = [];
  const event = (type: string, fields: Record<string, unknown>) =>
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  event("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } });
  event("response.in_progress", { response: { ...base, status: "in_progress", output: [], usage: null } });
  const recordAt: Record<number, () => void> = {};
  for (const [output_index, item] of output.entries()) {
    const item_id = item.id;
    if (item.type === "reasoning") {
      event("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
      for (const [summary_index, part] of (item.summary as { text: string }[]).entries()) {
        event("response.reasoning_summary_part.added", {
          item_id,
          output_index,
          summary_index,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of splitIntoDeltas(part.text)) {
          event("response.reasoning_summary_text.delta", {
            item_id,
            output_index,
            summary_index,
            delta,
            obfuscation: "x",
          });
        }
        event("response.reasoning_summary_text.done", { item_id, output_index, summary_index, text: part.text });
        event("response.reasoning_summary_part.done", {
          item_id,
          output_index,
          summary_index,
          part: { type: "summary_text", text: part.text },
        });
      }
    } else if (item.type === "message") {
      const text = (item.content as { text: string }[])[0]!.text;
      event("response.output_item.added", {
        output_index,
        item: { id: item_id, type: "message", status: "in_progress", content: [], role: "assistant" },
      });
      event("response.content_part.added", {
        item_id,
        output_index,
        content_index: 0,
        part: { type: "output_text", annotations: [], logprobs: [], text: "" },
      });
      for (const delta of splitIntoDeltas(text)) {
        event("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      event("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
      event("response.content_part.done", {
        item_id,
        output_index,
        content_index: 0,
        part: { type: "output_text", annotations: [], logprobs: [], text },
      });
    } else {
      event("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of splitIntoDeltas(String(item.arguments))) {
        event("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      event("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
    }
    recordAt[frames.length] = () => record(item, output_index);
    event("response.output_item.done", { output_index, item });
  }
  if (reply.incomplete) {
    event("response.incomplete", {
      response: { ...base, status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output, usage },
    });
  } else event("response.completed", { response: { ...base, status: "completed", output, usage } });

  let cut = frames.length;
  if (reply.failAfter !== undefined) {
    cut = reply.failAfter;
    frames.splice(cut, frames.length - cut);
    event("response.failed", {
      response: {
        ...base,
        status: "failed",
        output: [],
        usage: null,
        error: {
          code: "server_error",
          message:
            "An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists.",
        },
      },
    });
  }
  // Streamed like writeEventStream, but each item is kept as its output_item.done is sent, as the API does.
  const tracked = frames.map((frame, index) => ({ frame, index }));
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const { frame, index } of tracked) {
    if (response.destroyed) return;
    if (index === reply.stallAfter) {
      await new Promise((resolve) => response.once("close", resolve));
      return;
    }
    if (index < cut) recordAt[index]?.();
    response.write(frame);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

const ALPHANUMERIC = "0123456789abcdef";

/** An id in the Responses API's style: a prefix and hex (`resp_68c1…`, `rs_…`, `fc_…`), or `call_` and alphanumerics. */
function openAIId(prefix: string, length: number): string {
  const alphabet = prefix === "call_" ? "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" : ALPHANUMERIC;
  return `${prefix}${Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join("")}`;
}
