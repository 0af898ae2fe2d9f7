import type { JSONValue, LanguageModelV4Message, LanguageModelV4ToolResultOutput } from "@ai-sdk/provider";
import type { ToolCallRecord } from "../store/records.js";

/** How far a check of a transcript got, and what it knows there: a transcript only grows, so a check goes on from it. */
export interface TranscriptCheck {
  /** How many messages were checked. */
  checked: number;
  /** The calls of the last message checked, which the next message must answer. */
  expected: Set<string>;
  /** Every tool call id so far. */
  called: Set<string>;
}

/** A check that has read nothing yet. */
export const newTranscriptCheck = (): TranscriptCheck => ({ checked: 0, expected: new Set(), called: new Set() });

/**
 * Checks the transcript a model is about to receive: every tool call must have an id no
 * other call has, be followed, in the very next message, by exactly one result, and every
 * result must answer a call of the message right before it.
 * @returns why it is invalid, or `undefined` when it is valid
 */
export function findTranscriptError(messages: readonly LanguageModelV4Message[]): string | undefined {
  const check = newTranscriptCheck();
  return continueTranscriptCheck(messages, check) ?? unansweredCalls(check);
}

/** Why the transcript a check has read ends with calls that have no result, if it does. */
export function unansweredCalls({ expected }: TranscriptCheck): string | undefined {
  return expected.size > 0 ? `The last message's tool calls ${[...expected].join(", ")} have no result.` : undefined;
}

/**
 * Checks the messages after those `check` has read, and moves it on: what a turn does
 * before each model call, at a cost of the messages appended since the last one.
 * @returns the first problem, or `undefined`
 */
export function continueTranscriptCheck(
  messages: readonly LanguageModelV4Message[],
  check: TranscriptCheck,
): string | undefined {
  const { called } = check;
  let expected = check.expected;
  for (let index = check.checked; index < messages.length; index++) {
    const message = messages[index]!;
    const results = message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [];
    const answered = new Set<string>();
    for (const result of results) {
      if (!expected.has(result.toolCallId)) {
        return answered.has(result.toolCallId)
          ? `messages.${index}: tool call ${result.toolCallId} has more than one result.`
          : `messages.${index}: the result for ${result.toolCallId} answers no tool call of the message before it.`;
      }
      expected.delete(result.toolCallId);
      answered.add(result.toolCallId);
    }
    if (expected.size > 0) {
      return `messages.${index}: tool calls ${[...expected].join(", ")} have no result right after them.`;
    }
    expected = new Set();
    for (const part of message.role === "assistant" ? message.content : []) {
      if (part.type !== "tool-call") continue;
      if (called.has(part.toolCallId)) return `messages.${index}: tool call id ${part.toolCallId} is used twice.`;
      called.add(part.toolCallId);
      if (!part.providerExecuted) expected.add(part.toolCallId);
    }
    check.expected = expected;
    check.checked = index + 1;
  }
  return undefined;
}

/** The tool message that answers a step's calls, in call order: one result per call. */
export function toolResultMessage(calls: readonly ToolCallRecord[]): LanguageModelV4Message {
  return {
    role: "tool",
    content: [...calls]
      .sort((a, b) => a.index - b.index)
      .map((call) => ({
        type: "tool-result" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: toModelOutput(call),
      })),
  };
}

const DECLINED = "The person declined";

/**
 * What the model reads of a declined call. Providers send a denial's reason as the whole
 * result, with nothing saying the call did not run: the reason says so, then the person's words.
 */
function declinedText(reason: string | undefined): string {
  return reason ? `${DECLINED}, saying: ${reason}` : `${DECLINED}.`;
}

/** The person's words in what the model read of a declined call ({@link declinedText}), if they gave any. */
export function declinedReason(text: string | undefined): string | undefined {
  const said = `${DECLINED}, saying: `;
  return text?.startsWith(said) ? text.slice(said.length) : undefined;
}

function toModelOutput(call: ToolCallRecord): LanguageModelV4ToolResultOutput {
  const output = call.output as { message?: string; reason?: string } | undefined;
  switch (call.outcome) {
    case "ok":
      return { type: "json", value: (call.output ?? null) as JSONValue };
    case "declined":
      return { type: "execution-denied", reason: declinedText(output?.reason) };
    case "cancelled":
      return { type: "text", value: `Cancelled: ${output?.reason ?? "the person cancelled this request."}` };
    case "expired":
      return { type: "text", value: "The request expired before the person answered." };
    default:
      return { type: "error-text", value: output?.message ?? "The tool failed." };
  }
}

/**
 * What the model is sent as its own words where a turn ended on tool results (see
 * {@link withTurnBreaks}), marked so the scripted model does not count it as a step.
 */
const TURN_BREAK: LanguageModelV4Message = {
  role: "assistant",
  content: [{ type: "text", text: "(Stopped here.)" }],
  providerOptions: { hitlKit: { turnBreak: true } },
};

/** Whether a prompt's message is the runtime's own (see {@link withTurnBreaks}), not the model's. */
export function isTurnBreak(message: LanguageModelV4Message): boolean {
  return message.providerOptions?.hitlKit?.turnBreak === true;
}

/**
 * The transcript as sent to the model: where a person's message follows tool results
 * directly (they wrote instead of answering, or stopped the turn before the model went on),
 * a short assistant message between them. Gemini refuses two user turns in a row, which
 * tool results and a message are to it, and Mistral a user message right after tool results.
 * Only what is sent changes; the stored transcript stays as it happened.
 */
export function withTurnBreaks(messages: readonly LanguageModelV4Message[]): LanguageModelV4Message[] {
  const sent: LanguageModelV4Message[] = [];
  for (const [index, message] of messages.entries()) {
    sent.push(message);
    if (message.role === "tool" && messages[index + 1]?.role === "user") sent.push(TURN_BREAK);
  }
  return sent;
}

/**
 * A `prepareTranscript` that sends the model about the last `count` messages of a session:
 * from the first person's message among them, so that no result is sent without its call
 * and the first message is the person's, as providers ask. A turn longer than `count`
 * (many tool steps since the person last wrote) is sent whole, from its message.
 * @example
 * createAgentRuntime({ model, tools, store, prepareTranscript: keepLastMessages(200) });
 */
export function keepLastMessages(
  count: number,
): (messages: readonly LanguageModelV4Message[]) => readonly LanguageModelV4Message[] {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`keepLastMessages needs a whole number of messages, 1 or more, not ${count}.`);
  }
  return (messages) => {
    const from = messages.length - count;
    if (from <= 0) return messages;
    const isPersons = (message: LanguageModelV4Message | undefined) => message?.role === "user";
    let start = from;
    while (start < messages.length && !isPersons(messages[start])) start++;
    if (start === messages.length) {
      start = from;
      while (start > 0 && !isPersons(messages[start])) start--;
    }
    return messages.slice(start);
  };
}
