import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { continueTranscriptCheck } from "../src/runtime/transcript.js";
import { TranscriptCache } from "../src/runtime/transcript-cache.js";

const message = (text: string): LanguageModelV4Message => ({ role: "user", content: [{ type: "text", text }] });

describe("TranscriptCache", () => {
  it("keeps each transcript's check, so the next one reads only what was appended", async () => {
    const cache = new TranscriptCache();
    const stored = [message("1")];
    const first = await cache.get("s", 1, async (from) => stored.slice(from));
    expect(continueTranscriptCheck(first.messages, first.check)).toBeUndefined();
    expect(first.check.checked).toBe(1);
    stored.push(message("2"));
    const second = await cache.get("s", 2, async (from) => stored.slice(from));
    expect(second.check).toBe(first.check);
    expect(continueTranscriptCheck(second.messages, second.check)).toBeUndefined();
    expect(second.check.checked).toBe(2);
  });

  it("reads only the messages appended since, and reads anew a transcript shorter than cached", async () => {
    const stored = [message("1"), message("2")];
    const reads: number[] = [];
    const readFrom = async (from: number) => {
      reads.push(from);
      return stored.slice(from);
    };
    const cache = new TranscriptCache();
    expect((await cache.get("s", 2, readFrom)).messages).toEqual(stored);
    stored.push(message("3"));
    expect((await cache.get("s", 3, readFrom)).messages).toEqual(stored);
    expect((await cache.get("s", 3, readFrom)).messages).toEqual(stored);
    expect(reads).toEqual([0, 2]);
    stored.splice(1);
    expect((await cache.get("s", 1, readFrom)).messages).toEqual(stored);
    expect(reads).toEqual([0, 2, 0]);
  });

  it("holds at most maxSize characters of JSON, dropping the least recently used sessions", async () => {
    const size = JSON.stringify(message("a0")).length;
    const cache = new TranscriptCache(3 * size);
    const reads: string[] = [];
    const reader = (id: string, count: number) => async (from: number) => {
      reads.push(`${id}@${from}`);
      return Array.from({ length: count - from }, (_, index) => message(`${id}${from + index}`));
    };
    await cache.get("a", 2, reader("a", 2));
    await cache.get("b", 1, reader("b", 1));
    await cache.get("a", 2, reader("a", 2)); // a is the most recent now
    await cache.get("c", 1, reader("c", 1)); // 4 held: b goes
    await cache.get("a", 2, reader("a", 2));
    await cache.get("b", 1, reader("b", 1));
    expect(reads).toEqual(["a@0", "b@0", "c@0", "b@0"]);
  });

  it("weighs a message by what it holds: one long reply counts for more than many short ones", async () => {
    const cache = new TranscriptCache(10_000);
    const reads: string[] = [];
    const reader = (id: string, text: string) => async () => {
      reads.push(id);
      return [message(text)];
    };
    await cache.get("short", 1, reader("short", "hi"));
    await cache.get("long", 1, reader("long", "x".repeat(9_990))); // over the bound with it: short goes
    await cache.get("short", 1, reader("short", "hi"));
    expect(reads).toEqual(["short", "long", "short"]);
  });

  it("hands out copies: a caller adding to one changes nothing cached", async () => {
    const cache = new TranscriptCache();
    const first = await cache.get("s", 1, async () => [message("1")]);
    first.messages.push(message("mine"));
    expect((await cache.get("s", 1, async () => [])).messages).toEqual([message("1")]);
  });
});
