/**
 * What the streaming benchmarks stream: the same text, cut into the same deltas, for
 * hitl-kit and for the AI SDK. Runs in Node (the wire server) and in the page (the
 * expected text, the AI SDK side's history). A run's id says its case, so the server
 * needs no state to know what to send.
 */

/** One frame of a 60 Hz display, in milliseconds. */
export const FRAME_MS = 1000 / 60;

/** The clients under test. */
export const variants = ["hitl-kit", "useChat throttle 16", "useChat"] as const;
/**
 * No client: the same stream read by `fetch`, each event parsed, and once per animation frame
 * the text laid out as `<MessageText>` lays it out. What showing the stream costs the browser
 * whatever the client; what a client costs above it is its own (Chromium's rate case runs it
 * beside the three).
 */
export const floor = "no client (floor)";
export type Variant = (typeof variants)[number] | typeof floor;

/** What one run streams: `deltas` one-word deltas, at `rate` per second (0: all at once), after `history` messages. */
export interface StreamShape {
  deltas: number;
  /** Deltas per second; 0 writes the whole stream at once (a backlog). */
  rate: number;
  /** Messages already in the session before this reply. */
  history: number;
}

const words = ["the ", "cat ", "sat ", "on ", "a ", "warm ", "mat ", "and ", "hummed ", "softly "];
/** A reply is paragraphs of this many words, as a model writes them. */
export const WORDS_PER_PARAGRAPH = 60;

/** The `index`th delta of a reply: one word, and a blank line after every paragraph. */
export function deltaAt(index: number): string {
  const word = words[index % words.length]!;
  return index % WORDS_PER_PARAGRAPH === WORDS_PER_PARAGRAPH - 1 ? `${word.trimEnd()}.\n\n` : word;
}

/** The whole text of a reply of `deltas` deltas. */
export function replyText(deltas: number): string {
  let text = "";
  for (let index = 0; index < deltas; index++) text += deltaAt(index);
  return text;
}

/** The text of the `index`th message of a session's history (about 25 words). */
export function historyText(index: number): string {
  return `Message ${index}: ${words.join("").repeat(2)}${index % 2 === 0 ? "please." : "done."}`;
}

/** The role of the `index`th message of a session's history. */
export const historyRole = (index: number): "user" | "assistant" => (index % 2 === 0 ? "user" : "assistant");

/** The id of the streamed reply, on both sides. */
export const REPLY_ID = "msg_reply";

/** A run's id: unique per run, and it carries the shape the server streams. */
export function runIdOf(shape: StreamShape, run: string): string {
  return `r_${run}_${shape.deltas}_${shape.rate}_${shape.history}`;
}

/** The shape a run's id carries; throws on an id that no run made. */
export function shapeOf(runId: string): StreamShape {
  const match = /^r_[a-z0-9-]+_(\d+)_(\d+)_(\d+)$/.exec(runId);
  if (!match) throw new Error(`Not a benchmark run id: ${runId} (made by runIdOf).`);
  return { deltas: Number(match[1]), rate: Number(match[2]), history: Number(match[3]) };
}
