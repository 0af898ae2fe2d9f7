import { randomBytes } from "node:crypto";
import { openAIErrors } from "./fake-openai.js";
import { type ProviderDialect, startFakeProviderServer, writeEventStream } from "./fake-provider-server.js";
import {
  estimateTokens,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeReply,
  splitIntoDeltas,
} from "./fake-reply.js";
import { checkOpenAIRequest } from "./validate-openai-messages.js";

/** How a self-hosted OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio, …) streams tool calls. */
export type CompatibleQuirks = {
  /**
   * `unique`: `call_` and 24 random characters, as OpenAI. `missing`: no `id` at all.
   * `numbered`: `call_0`, `call_1`, … counted from 0 in every reply, so a later reply repeats
   * an earlier one's ids. `constant`: every call of every reply is `call_0`.
   */
  ids?: "unique" | "missing" | "numbered" | "constant";
  /**
   * `pieces`: a chunk with index, id and name, then argument pieces, as OpenAI. `whole`: every
   * call complete in one chunk (Ollama). `whole-no-index`: the same without `index` (older
   * Ollama, LM Studio).
   */
  arguments?: "pieces" | "whole" | "whole-no-index";
  /** Reasoning as `reasoning_content` deltas (vLLM, DeepSeek) instead of dropping it. */
  reasoningContent?: boolean;
};

export type FakeCompatibleOptions = FakeProviderOptions & { quirks?: CompatibleQuirks };

/**
 * Starts a local OpenAI-compatible chat completions server (`POST /v1/chat/completions`,
 * streamed) that pairs tool calls and results as strictly as OpenAI, but streams tool calls
 * the ways self-hosted servers do: see {@link CompatibleQuirks}.
 */
export function startFakeOpenAICompatible(options: FakeCompatibleOptions): Promise<FakeProvider> {
  const quirks = options.quirks ?? {};
  const dialect: ProviderDialect = {
    name: "startFakeOpenAICompatible",
    path: "/v1/chat/completions",
    ...openAIErrors,
    authenticate: () => null, // local servers take any key, or none
    validate: (body) => {
      const error = checkOpenAIRequest(body);
      return error === null ? null : { status: 400, ...error };
    },
    respond: async (body, reply, response) => {
      await writeEventStream(response, toChunks(body, reply, quirks), reply.stallAfter);
    },
  };
  return startFakeProviderServer(dialect, options);
}

function toChunks(body: Record<string, unknown>, reply: FakeReply, quirks: CompatibleQuirks): string[] {
  const id = `chatcmpl-${randomBytes(12).toString("hex")}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  const chunks = [frame({ role: "assistant", content: "" })];
  if (quirks.reasoningContent) {
    for (const piece of splitIntoDeltas(reply.reasoning ?? "")) chunks.push(frame({ reasoning_content: piece }));
  }
  for (const content of splitIntoDeltas(reply.text ?? "")) chunks.push(frame({ content }));
  const calls = (reply.toolCalls ?? []).map((call, index) => {
    const callId =
      call.id ??
      {
        unique: `call_${randomBytes(12).toString("hex")}`,
        missing: undefined,
        numbered: `call_${index}`,
        constant: "call_0",
      }[quirks.ids ?? "unique"];
    return { id: callId, name: call.name, arguments: JSON.stringify(call.input ?? {}), index };
  });
  const style = quirks.arguments ?? "pieces";
  if (style === "pieces") {
    for (const call of calls) {
      chunks.push(
        frame({
          tool_calls: [
            {
              index: call.index,
              ...(call.id ? { id: call.id } : {}),
              type: "function",
              function: { name: call.name, arguments: "" },
            },
          ],
        }),
      );
      for (const piece of splitIntoDeltas(call.arguments)) {
        chunks.push(frame({ tool_calls: [{ index: call.index, function: { arguments: piece } }] }));
      }
    }
  } else if (calls.length > 0) {
    chunks.push(
      frame({
        tool_calls: calls.map((call) => ({
          ...(style === "whole" ? { index: call.index } : {}),
          ...(call.id ? { id: call.id } : {}),
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      }),
    );
  }
  chunks.push(frame({}, calls.length > 0 ? "tool_calls" : "stop"));
  const prompt_tokens = estimateTokens(body.messages);
  const completion_tokens = estimateTokens([reply.text, calls]);
  chunks.push(
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } })}\n\n`,
  );
  chunks.push("data: [DONE]\n\n");
  return chunks;
}
