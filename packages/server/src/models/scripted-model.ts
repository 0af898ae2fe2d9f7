import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import { randomId } from "../runtime/ids.js";
import { declinedReason, isTurnBreak } from "../runtime/transcript.js";

/** One reply of a scripted model: text, reasoning and tool calls, streamed in that order. */
export interface ScriptedReply {
  /** Reasoning, streamed first in chunks of `wordsPerChunk` words. */
  reasoning?: string;
  /** The assistant's text, streamed after the reasoning in chunks of `wordsPerChunk` words. */
  text?: string;
  /**
   * Tool calls, after the text. `input` is sent as JSON (a string as it is, so a test can send
   * invalid JSON); a call without `toolCallId` gets a random `call_…` id.
   */
  toolCalls?: { toolName: string; input: unknown; toolCallId?: string }[];
}

/** What a script function is told: the prompt, and the facts most scripts look at. */
export interface ScriptContext {
  /** The full prompt of this model call, as the runtime sent it (tool results included). */
  prompt: LanguageModelV4Message[];
  /**
   * How many assistant messages the prompt holds (not counting the runtime's "(Stopped
   * here.)" after a turn that ended on tool results): the index of this step in the session,
   * 0 for the first call (telemetry's `step` counts a turn's calls from 1).
   */
  step: number;
  /** The text of the newest user message. */
  lastUserText: string;
  /**
   * Results of the tool message after the newest user message, if any: `type` is how the
   * runtime sent each (`json` for a tool's output, `execution-denied` for a declined call,
   * `error-text` for an error or a cancelled call, `text`), `output` its value.
   */
  lastResults: { toolName: string; output: unknown; type: LanguageModelV4ToolResultOutput["type"] }[];
}

/** A script: replies in order (one per step of the session), or a function of the context. */
export type Script = readonly ScriptedReply[] | ((context: ScriptContext) => ScriptedReply);

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /** Milliseconds between streamed chunks (default 0), to make a demo feel alive. */
  chunkDelayMs?: number;
  /** Words per text chunk (default 1). */
  wordsPerChunk?: number;
}

/**
 * A real `LanguageModelV4` that follows a script instead of a network: for tests,
 * stories and a demo that needs no key. Each session follows the script on its own —
 * the step is the number of assistant messages in the prompt.
 * @example
 * const model = scriptedModel([
 *   { text: "Pick a template.", toolCalls: [{ toolName: "pick_template", input: { templates } }] },
 *   { text: "Done." },
 * ]);
 */
export function scriptedModel(script: Script, options: ScriptedModelOptions = {}): LanguageModelV4 {
  const generate = async (call: LanguageModelV4CallOptions) => {
    const context = contextOf(call.prompt);
    if (typeof script === "function") return script(context);
    const reply = script[context.step];
    if (!reply) throw new Error(`The script has no reply for step ${context.step}; it has ${script.length}.`);
    return reply;
  };
  return {
    specificationVersion: "v4",
    provider: "hitl-kit",
    modelId: "scripted",
    supportedUrls: {},
    async doGenerate() {
      throw new Error("scriptedModel only streams: the hitl-kit runtime calls doStream.");
    },
    async doStream(call) {
      const reply = await generate(call);
      const parts = streamParts(reply, options.wordsPerChunk ?? 1);
      const delay = options.chunkDelayMs ?? 0;
      const signal = call.abortSignal;
      let index = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            if (signal?.aborted) return controller.error(signal.reason);
            const part = parts[index++];
            if (!part) return controller.close();
            if (delay > 0 && (part.type === "text-delta" || part.type === "reasoning-delta"))
              await sleep(delay, signal);
            controller.enqueue(part);
          },
        }),
      };
    },
  };
}

function streamParts(reply: ScriptedReply, wordsPerChunk: number): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  for (const [kind, text] of [
    ["reasoning", reply.reasoning],
    ["text", reply.text],
  ] as const) {
    if (!text) continue;
    const id = `${kind}-0`;
    parts.push({ type: `${kind}-start`, id });
    for (const delta of chunks(text, wordsPerChunk)) parts.push({ type: `${kind}-delta`, id, delta });
    parts.push({ type: `${kind}-end`, id });
  }
  for (const call of reply.toolCalls ?? []) {
    parts.push({
      type: "tool-call",
      toolCallId: call.toolCallId ?? randomId("call"),
      toolName: call.toolName,
      input: typeof call.input === "string" ? call.input : JSON.stringify(call.input),
    });
  }
  const usage = { inputTokens: none, outputTokens: { total: undefined, text: undefined, reasoning: undefined } };
  const unified = reply.toolCalls?.length ? "tool-calls" : "stop";
  parts.push({ type: "finish", finishReason: { unified, raw: unified }, usage });
  return parts;
}

const none = { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined };

function chunks(text: string, wordsPerChunk: number): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) out.push(words.slice(i, i + wordsPerChunk).join(""));
  return out;
}

function contextOf(prompt: LanguageModelV4Message[]): ScriptContext {
  let step = 0;
  for (const message of prompt) if (message.role === "assistant" && !isTurnBreak(message)) step += 1;
  // The newest user message, and the newest tool message after it: read from the end.
  let lastUserText = "";
  let lastResults: ScriptContext["lastResults"] | undefined;
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    const message = prompt[index]!;
    if (message.role === "tool" && lastResults === undefined) {
      lastResults = message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [{ toolName: part.toolName, type: part.output.type, output: outputValue(part.output) }]
          : [],
      );
    }
    if (message.role === "user") {
      lastUserText = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      break;
    }
  }
  return { prompt, step, lastUserText, lastResults: lastResults ?? [] };
}

function outputValue(output: { type: string; value?: unknown; reason?: string }): unknown {
  return output.type === "execution-denied" ? { reason: declinedReason(output.reason) } : output.value;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}
