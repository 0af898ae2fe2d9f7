import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider";
import type { EventInput } from "@hitl-kit/protocol";

/** A tool call as the model made it. */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** The parsed input, or `undefined` when the model's JSON did not parse. */
  input: unknown;
  /** The model's raw input text. */
  inputText: string;
}

/** What one model call produced. */
export interface StepOutput {
  /** The assistant message the step streamed into, if it streamed any text. */
  messageId?: string;
  /** The assistant message to append to the transcript. */
  message: LanguageModelV4Message & { role: "assistant" };
  toolCalls: ModelToolCall[];
  /** What the model said of the call in its stream (its `finish` and `response-metadata` parts), for telemetry. */
  report: {
    finishReason?: LanguageModelV4FinishReason["unified"];
    usage?: LanguageModelV4Usage;
    responseId?: string;
    responseModelId?: string;
  };
}

interface StepOptions {
  model: LanguageModelV4;
  /** The call's options; `abortSignal` stops it (a Stop, a lost lease). */
  callOptions: LanguageModelV4CallOptions & { abortSignal: AbortSignal };
  /** The longest the model may send nothing, before its first part or between two, before its call is stopped. */
  stallMs: number;
  /** Appends events to the log (and publishes them) before the stream goes on. */
  emit: (events: EventInput[]) => Promise<void>;
  newMessageId: () => string;
}

/** The model sent nothing for `stallMs`, so its call was stopped (`modelStallMs`). */
export class ModelStalled extends Error {
  readonly code = "model_stalled";
  constructor(stallMs: number, streamed: boolean) {
    super(
      `The model sent nothing for ${stallMs} ms ${streamed ? "in the middle of its reply" : "after it was called"}, so the call was stopped (the runtime's modelStallMs).`,
    );
    this.name = "ModelStalled";
  }
}

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

/**
 * Streams one model call: text and reasoning deltas are appended as events as they
 * arrive; tool calls are collected for the runtime to commit with the step. The call stops
 * when its `abortSignal` aborts or the model sends nothing for `stallMs`, even when the
 * model ignores its signal: its stream is cancelled and the step throws at once.
 * @throws the provider's error, the stream's `error` part, {@link ModelStalled}, or the signal's reason
 */
export async function streamModelStep({
  model,
  callOptions,
  stallMs,
  emit,
  newMessageId,
}: StepOptions): Promise<StepOutput> {
  const outer = callOptions.abortSignal;
  if (outer.aborted) throw outer.reason;
  const call = new AbortController();
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
  let streamed = false;
  let haltStart: (reason: unknown) => void = () => {};
  const halted = new Promise<never>((_, reject) => (haltStart = reject));
  halted.catch(() => {});
  const halt = (reason: unknown) => {
    if (call.signal.aborted) return;
    call.abort(reason);
    haltStart(reason);
    reader?.cancel(reason).catch(() => {});
  };
  const watch = stallWatch(stallMs, () => halt(new ModelStalled(stallMs, streamed)));
  const stop = () => halt(outer.reason);
  outer.addEventListener("abort", stop);
  try {
    const started = Promise.resolve(model.doStream({ ...callOptions, abortSignal: call.signal }));
    // A model that ignores its signal may answer after all: nobody reads that stream, so cancel it.
    started.then(
      ({ stream }) => {
        if (call.signal.aborted) stream.cancel().catch(() => {});
      },
      () => {},
    );
    reader = (await Promise.race([started, halted])).stream.getReader();
    if (call.signal.aborted) {
      reader.cancel(call.signal.reason).catch(() => {});
      throw call.signal.reason;
    }
    const output = await readParts(reader, watch.touch, newMessageId, (events) => {
      streamed = true;
      return emit(events);
    });
    // A cancelled stream reads as ended: the stop is the step's outcome, not what it read.
    if (call.signal.aborted) throw call.signal.reason;
    return output;
  } catch (error) {
    throw call.signal.aborted ? call.signal.reason : error;
  } finally {
    watch.stop();
    outer.removeEventListener("abort", stop);
  }
}

/**
 * Calls `onStall` once `stallMs` pass without a `touch()`. One timer, re-armed only when it
 * fires early, so a part costs one clock read, not a timer.
 */
function stallWatch(stallMs: number, onStall: () => void): { touch: () => void; stop: () => void } {
  let last = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number) => {
    timer = setTimeout(check, Math.min(ms, MAX_TIMER_MS));
  };
  const check = () => {
    const left = stallMs - (performance.now() - last);
    if (left > 0) arm(left);
    else onStall();
  };
  if (Number.isFinite(stallMs)) arm(stallMs);
  return {
    touch: () => {
      last = performance.now();
    },
    stop: () => clearTimeout(timer),
  };
}

/** The longest `setTimeout` delay; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

async function readParts(
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  touch: () => void,
  newMessageId: () => string,
  emit: (events: EventInput[]) => Promise<void>,
): Promise<StepOutput> {
  let messageId: string | undefined;
  const parts: AssistantPart[] = [];
  const blocks = new Map<string, { part: AssistantPart & { text: string }; metadata?: SharedV4ProviderMetadata }>();
  const toolCalls: ModelToolCall[] = [];
  const report: StepOutput["report"] = {};

  const delta = async (kind: "text" | "reasoning", id: string, text: string, metadata?: SharedV4ProviderMetadata) => {
    let block = blocks.get(id);
    if (!block) {
      block = { part: { type: kind, text: "" } };
      blocks.set(id, block);
      parts.push(block.part);
    }
    block.part.text += text;
    if (metadata) block.metadata = { ...block.metadata, ...metadata };
    if (text === "") return;
    const events: EventInput[] = [];
    if (!messageId) {
      messageId = newMessageId();
      events.push({ type: "message.started", messageId, role: "assistant" });
    }
    events.push({ type: kind === "text" ? "text.delta" : "reasoning.delta", messageId, delta: text });
    await emit(events);
  };

  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
    touch();
    switch (part.type) {
      case "text-start":
      case "reasoning-start":
        await delta(part.type === "text-start" ? "text" : "reasoning", part.id, "", part.providerMetadata);
        break;
      case "text-delta":
      case "reasoning-delta":
        await delta(part.type === "text-delta" ? "text" : "reasoning", part.id, part.delta, part.providerMetadata);
        break;
      case "text-end":
      case "reasoning-end": {
        const block = blocks.get(part.id);
        if (block && part.providerMetadata) block.metadata = { ...block.metadata, ...part.providerMetadata };
        break;
      }
      case "tool-call": {
        if (part.providerExecuted) break;
        const input = parseInput(part.input);
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input, inputText: part.input });
        parts.push({
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: input ?? {},
          ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}),
        });
        break;
      }
      case "finish":
        report.finishReason = part.finishReason.unified;
        report.usage = part.usage;
        break;
      case "response-metadata":
        if (part.id !== undefined) report.responseId = part.id;
        if (part.modelId !== undefined) report.responseModelId = part.modelId;
        break;
      case "error":
        throw asError(part.error);
      default:
        break;
    }
  }
  for (const block of blocks.values()) {
    if (block.metadata) Object.assign(block.part, { providerOptions: block.metadata });
  }
  // Empty text goes, as the AI SDK drops it, unless the provider tied it to an item of its own
  // (OpenAI's `itemId`: its reasoning must be sent back followed by that message item).
  const content = parts.filter(
    (part) => !("text" in part) || part.text !== "" || part.type === "reasoning" || part.providerOptions !== undefined,
  );
  return { ...(messageId ? { messageId } : {}), message: { role: "assistant", content }, toolCalls, report };
}

function parseInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A stream's `error` part as an Error. Providers send plain objects there (an overload
 * mid-stream): what they say of it (`message`, `statusCode`, `isRetryable`) is kept, so the
 * runtime can retry it and name its status.
 */
function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error !== "object" || error === null) return new Error(describe(error));
  const { message } = error as { message?: unknown };
  return Object.assign(new Error(typeof message === "string" ? message : describe(error)), error);
}

function describe(error: unknown): string {
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
