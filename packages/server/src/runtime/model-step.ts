import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
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
}

interface StepOptions {
  model: LanguageModelV4;
  callOptions: LanguageModelV4CallOptions;
  /** Appends events to the log (and publishes them) before the stream goes on. */
  emit: (events: EventInput[]) => Promise<void>;
  newMessageId: () => string;
}

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

/**
 * Streams one model call: text and reasoning deltas are appended as events as they
 * arrive; tool calls are collected for the runtime to commit with the step.
 * @throws the provider's error, or the stream's `error` part
 */
export async function streamModelStep({ model, callOptions, emit, newMessageId }: StepOptions): Promise<StepOutput> {
  const { stream } = await model.doStream(callOptions);
  let messageId: string | undefined;
  const parts: AssistantPart[] = [];
  const blocks = new Map<string, { part: AssistantPart & { text: string }; metadata?: SharedV4ProviderMetadata }>();
  const toolCalls: ModelToolCall[] = [];

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

  const reader = stream.getReader();
  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
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
      case "error":
        throw part.error instanceof Error ? part.error : new Error(describe(part.error));
      default:
        break;
    }
  }
  for (const block of blocks.values()) {
    if (block.metadata) Object.assign(block.part, { providerOptions: block.metadata });
  }
  const content = parts.filter((part) => !("text" in part) || part.text !== "" || part.type === "reasoning");
  return { ...(messageId ? { messageId } : {}), message: { role: "assistant", content }, toolCalls };
}

function parseInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
