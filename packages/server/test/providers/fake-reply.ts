/** One tool call a fake provider answers with. */
export type FakeToolCall = {
  /** The call's id; generated in the provider's style (`toolu_…`, `call_…`) when absent. */
  id?: string;
  name: string;
  /** The call's arguments; sent as JSON. */
  input: unknown;
};

/**
 * What a fake provider answers one request with, streamed in this order: reasoning, text,
 * then each tool call. With tool calls the turn stops for tools (`tool_use`, `tool_calls`),
 * otherwise it ends (`end_turn`, `stop`).
 */
export type FakeReply = {
  text?: string;
  /** Streamed as Anthropic thinking; the Chat Completions API streams no reasoning, so the OpenAI fake drops it. */
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  /** Answers with this error instead (an overload, a rate limit), in the provider's error body. */
  fail?: { status: number; message: string; headers?: Record<string, string> };
  /** Streams this many frames, then sends nothing more until the client leaves (a stalled stream). */
  stallAfter?: number;
  /** Anthropic only: streams this many frames, then an `overloaded_error` event, and ends (an overload mid-stream). */
  overloadAfter?: number;
};

/** Reply i answers the i-th accepted request; a function is asked for each one instead. */
export type FakeReplies = FakeReply[] | ((body: unknown, index: number) => FakeReply);

/** Options of `startFakeAnthropic` and `startFakeOpenAI`. */
export type FakeProviderOptions = {
  replies: FakeReplies;
};

/** One request a fake provider received, and how it answered. */
export type RecordedRequest = {
  method: string;
  /** The URL path, such as `/v1/messages`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  status: number;
  /** The error message answered, when the status is not 200. */
  error?: string;
  /** The client closed the connection before the answer was complete. */
  left?: boolean;
};

/** A running fake provider. */
export type FakeProvider = {
  /** Pass it as `baseURL` to the provider package's factory. */
  baseURL: string;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
};

/**
 * Splits a string into deltas of a few characters, never inside a surrogate pair, the way a
 * provider streams tokens. An empty string gives no deltas.
 */
export function splitIntoDeltas(text: string, size = 7): string[] {
  const characters = Array.from(text);
  const deltas: string[] = [];
  for (let i = 0; i < characters.length; i += size) deltas.push(characters.slice(i, i + size).join(""));
  return deltas;
}

/** A rough token count for usage numbers: one token per four characters. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}
