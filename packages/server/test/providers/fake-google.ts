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
import { SKIP_THOUGHT_SIGNATURE, validateGoogleContents } from "./validate-google-contents.js";

/** Options of `startFakeGoogle`: the model id the URL names decides thinking and signature rules. */
export type FakeGoogleOptions = FakeProviderOptions & {
  /** `gemini-3-…` requires signatures back; `gemini-2.5-…` issues them but does not require them. Default `gemini-3-pro-preview`. */
  model?: string;
};

/** A running fake Gemini API, with what it knows of thought signatures. */
export type FakeGoogle = FakeProvider & {
  /**
   * How many function calls came back with Google's skip value instead of their signature:
   * what `@ai-sdk/google` sends when a stored transcript lost one, and Gemini accepts.
   */
  skippedSignatures: number;
};

/**
 * Starts a local server that behaves like the Gemini API's `streamGenerateContent?alt=sse` for
 * one model (`POST /v1/models/{model}:streamGenerateContent`). Like a thinking model, it signs
 * the first functionCall part of a reply (or, without calls, its last part) with a
 * `thoughtSignature`, and refuses what the real API refuses with its 400 body: see
 * {@link validateGoogleContents}. Function calls carry no `id` unless the reply gives one, as
 * the Gemini Developer API's do not.
 *
 * @example
 * const fake = await startFakeGoogle({ replies: [{ text: "Hi" }] });
 * const model = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: "test" })("gemini-3-pro-preview");
 */
export async function startFakeGoogle(options: FakeGoogleOptions): Promise<FakeGoogle> {
  const model = options.model ?? "gemini-3-pro-preview";
  const issued = new Set<string>();
  let skippedSignatures = 0;
  const sign = () => {
    const signature = randomBytes(48).toString("base64");
    issued.add(signature);
    return signature;
  };
  const dialect: ProviderDialect = {
    name: "startFakeGoogle",
    path: `/v1/models/${model}:streamGenerateContent`,
    errorBody: (rejection: Rejection) => ({
      error: { code: rejection.status, message: rejection.message, status: STATUS[rejection.status] ?? "INTERNAL" },
    }),
    authenticate: (headers) =>
      headers["x-goog-api-key"]
        ? null
        : {
            status: 403,
            message:
              "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          },
    validate: (body) => {
      const message = validateGoogleContents(body, { requireSignatures: model.startsWith("gemini-3"), issued });
      if (message === null) skippedSignatures += countSkipped(body);
      return message === null ? null : { status: 400, message };
    },
    respond: async (body, reply, response) => {
      await writeEventStream(response, toChunks(body, reply, model, sign), reply.stallAfter);
    },
  };
  const fake = await startFakeProviderServer(dialect, options);
  return {
    ...fake,
    get skippedSignatures() {
      return skippedSignatures;
    },
  };
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

type Part = Record<string, unknown>;

/** The SSE chunks: thought summaries, text pieces, function calls (one part each), then the finish. */
function toChunks(body: Record<string, unknown>, reply: FakeReply, model: string, sign: () => string): string[] {
  const responseId = randomBytes(12).toString("base64url");
  const chunks: Part[][] = [];
  if (reply.reasoning) for (const text of splitIntoDeltas(reply.reasoning)) chunks.push([{ text, thought: true }]);
  if (reply.text) for (const text of splitIntoDeltas(reply.text)) chunks.push([{ text }]);
  const calls = reply.toolCalls ?? [];
  for (const [index, call] of calls.entries()) {
    chunks.push([
      {
        functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.input ?? {} },
        // Only the first call of a reply is signed, as Gemini does with parallel calls.
        ...(index === 0 ? { thoughtSignature: sign() } : {}),
      },
    ]);
  }
  // Without calls, the signature comes on the last part: an empty text part, as Gemini streams it.
  if (calls.length === 0) chunks.push([{ text: "", thoughtSignature: sign() }]);
  const usageMetadata = {
    promptTokenCount: estimateTokens(body.contents),
    candidatesTokenCount: estimateTokens([reply.text, calls]),
    totalTokenCount: estimateTokens(body.contents) + estimateTokens([reply.text, calls]),
    thoughtsTokenCount: reply.reasoning ? estimateTokens(reply.reasoning) : undefined,
  };
  return chunks.map((parts, index) => {
    const last = index === chunks.length - 1;
    const chunk = {
      candidates: [{ content: { parts, role: "model" }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      usageMetadata: last ? usageMetadata : { promptTokenCount: usageMetadata.promptTokenCount, totalTokenCount: 0 },
      modelVersion: model,
      responseId,
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}

function countSkipped(body: unknown): number {
  const contents = (body as { contents?: { parts?: Part[] }[] }).contents ?? [];
  return contents
    .flatMap((content) => content.parts ?? [])
    .filter((part) => part.thoughtSignature === SKIP_THOUGHT_SIGNATURE).length;
}
