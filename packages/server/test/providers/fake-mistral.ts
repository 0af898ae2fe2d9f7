import { randomBytes } from "node:crypto";
import {
  type ProviderDialect,
  type Rejection,
  startFakeProviderServer,
  writeEventStream,
} from "./fake-provider-server.js";
import {
  estimateTokens,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeReply,
  splitIntoDeltas,
} from "./fake-reply.js";
import { checkMistralRequest } from "./validate-mistral-messages.js";

/**
 * Starts a local server that behaves like Mistral's chat completions
 * (`POST /v1/chat/completions`, streamed). It refuses what the real API refuses, with its 400
 * body (see {@link checkMistralRequest}). A reply's reasoning is streamed as `thinking` content,
 * as Magistral does; each tool call comes whole in one chunk with a 9-character id.
 *
 * @example
 * const fake = await startFakeMistral({ replies: [{ text: "Bonjour" }] });
 * const model = createMistral({ baseURL: fake.baseURL, apiKey: "test" })("mistral-large-latest");
 */
export function startFakeMistral(options: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProviderServer(mistralDialect, options);
}

const mistralDialect: ProviderDialect = {
  name: "startFakeMistral",
  path: "/v1/chat/completions",
  errorBody: (rejection: Rejection & { type?: string }) => ({
    object: "error",
    message: rejection.message,
    type: rejection.type ?? (rejection.status >= 500 ? "internal_server_error" : "invalid_request_error"),
    param: null,
    code: rejection.code ?? null,
  }),
  authenticate: (headers) =>
    headers.authorization?.startsWith("Bearer ") ? null : { status: 401, message: "Unauthorized" },
  validate: (body) => {
    const error = checkMistralRequest(body);
    return error === null ? null : ({ status: 400, ...error } as Rejection);
  },
  respond: async (body, reply, response) => {
    await writeEventStream(response, toChunks(body, reply), reply.stallAfter);
  },
};

function toChunks(body: Record<string, unknown>, reply: FakeReply): string[] {
  const id = randomBytes(16).toString("hex");
  const created = Math.floor(Date.now() / 1000);
  const frame = (delta: Record<string, unknown>, finish_reason: string | null = null, usage?: unknown) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const chunks = [frame({ role: "assistant", content: "" })];
  for (const text of splitIntoDeltas(reply.reasoning ?? "")) {
    chunks.push(frame({ content: [{ type: "thinking", thinking: [{ type: "text", text }] }] }));
  }
  for (const content of splitIntoDeltas(reply.text ?? "")) chunks.push(frame({ content }));
  const calls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? mistralId(),
    function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
    index,
  }));
  const prompt_tokens = estimateTokens(body.messages);
  const completion_tokens = estimateTokens([reply.text, calls]);
  const usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  if (calls.length > 0) chunks.push(frame({ tool_calls: calls }, "tool_calls", usage));
  else chunks.push(frame({ content: "" }, "stop", usage));
  chunks.push("data: [DONE]\n\n");
  return chunks;
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A tool call id as Mistral makes them: 9 alphanumerics (`D681PevKs`). */
function mistralId(): string {
  return Array.from(randomBytes(9), (byte) => ALPHANUMERIC[byte % 62]).join("");
}
