import type { LanguageModelV4Message } from "@ai-sdk/provider";

/**
 * The model transcripts of recently driven sessions, so a turn's next model call reads only
 * the messages appended since (the transcript only ever grows), not the whole history.
 * Bounded by the number of messages held; the least recently used sessions go first. The
 * store stays the truth: an entry longer than the stored transcript is dropped and read anew.
 */
export class TranscriptCache {
  readonly #entries = new Map<string, LanguageModelV4Message[]>();
  #held = 0;

  constructor(private readonly maxMessages = 50_000) {}

  /** The transcript of `length` messages, reading from the store only what is not cached. */
  async get(
    sessionId: string,
    length: number,
    readFrom: (from: number) => Promise<LanguageModelV4Message[]>,
  ): Promise<LanguageModelV4Message[]> {
    let cached = this.#take(sessionId);
    if (cached && cached.length > length) cached = undefined;
    const messages = cached ?? [];
    if (messages.length < length) messages.push(...(await readFrom(messages.length)));
    this.#put(sessionId, messages);
    return messages.slice();
  }

  /** Forgets a session (deleted). */
  forget(sessionId: string): void {
    this.#take(sessionId);
  }

  #take(sessionId: string): LanguageModelV4Message[] | undefined {
    const entry = this.#entries.get(sessionId);
    if (!entry) return undefined;
    this.#entries.delete(sessionId);
    this.#held -= entry.length;
    return entry;
  }

  #put(sessionId: string, messages: LanguageModelV4Message[]): void {
    this.#entries.set(sessionId, messages);
    this.#held += messages.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#held <= this.maxMessages || oldest === sessionId) break;
      this.#entries.delete(oldest);
      this.#held -= entry.length;
    }
  }
}
