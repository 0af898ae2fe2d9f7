import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { newTranscriptCheck, type TranscriptCheck } from "./transcript.js";

interface Entry {
  messages: LanguageModelV4Message[];
  check: TranscriptCheck;
  /** The messages' size as JSON, in characters. */
  size: number;
}

/** About how much memory a message takes: its length as JSON (a long reply or tool output weighs what it holds). */
function sizeOf(messages: readonly LanguageModelV4Message[]): number {
  let size = 0;
  for (const message of messages) size += JSON.stringify(message).length;
  return size;
}

/**
 * The model transcripts of recently driven sessions, with how far each has been checked, so
 * a turn's next model call reads and checks only the messages appended since (a transcript
 * only ever grows), not the whole history. Bounded by the size of what it holds (in
 * characters of JSON, 20 million by default); the least recently used sessions go first. The store stays the truth: an entry longer than
 * the stored transcript is dropped and read anew.
 */
export class TranscriptCache {
  readonly #entries = new Map<string, Entry>();
  #held = 0;

  constructor(private readonly maxSize = 20_000_000) {}

  /**
   * The transcript of `length` messages (a copy), reading from the store only what is not
   * cached, and its check so far, to go on from (`continueTranscriptCheck`).
   */
  async get(
    sessionId: string,
    length: number,
    readFrom: (from: number) => Promise<LanguageModelV4Message[]>,
  ): Promise<{ messages: LanguageModelV4Message[]; check: TranscriptCheck }> {
    let entry = this.#take(sessionId);
    if (entry && entry.messages.length > length) entry = undefined;
    entry ??= { messages: [], check: newTranscriptCheck(), size: 0 };
    if (entry.messages.length < length) {
      const read = await readFrom(entry.messages.length);
      entry.messages.push(...read);
      entry.size += sizeOf(read);
    }
    this.#put(sessionId, entry);
    return { messages: entry.messages.slice(), check: entry.check };
  }

  /** Forgets a session (deleted, or its transcript found invalid). */
  forget(sessionId: string): void {
    this.#take(sessionId);
  }

  #take(sessionId: string): Entry | undefined {
    const entry = this.#entries.get(sessionId);
    if (!entry) return undefined;
    this.#entries.delete(sessionId);
    this.#held -= entry.size;
    return entry;
  }

  #put(sessionId: string, entry: Entry): void {
    this.#entries.set(sessionId, entry);
    this.#held += entry.size;
    for (const [oldest, { size }] of this.#entries) {
      if (this.#held <= this.maxSize || oldest === sessionId) break;
      this.#entries.delete(oldest);
      this.#held -= size;
    }
  }
}
