import { describe, expect, it } from "vitest";
import { clearUnsentMessages, unsentMessages } from "../src/index.js";

/** A `sessionStorage` stand-in with the enumeration a sign-out needs. */
function tabStorage(entries: Record<string, string>) {
  const items = new Map(Object.entries(entries));
  return {
    items,
    get length() {
      return items.size;
    },
    key: (index: number) => [...items.keys()][index] ?? null,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe("clearUnsentMessages", () => {
  it("forgets every session's unsent messages and a new chat's, and leaves the app's own items", () => {
    const kept = (text: string) => JSON.stringify({ messages: [{ key: `key-${text.length}`, text }] });
    const storage = tabStorage({
      "hitl-kit:outbox:ses_a": kept("my IBAN is DE89…"),
      "app:theme": "dark",
      "hitl-kit:outbox:ses_b": kept("and my birthday"),
      "hitl-kit:outbox:new": kept("first words"),
    });
    expect(unsentMessages(storage, "ses_a")).toHaveLength(1);
    clearUnsentMessages(storage);
    expect([...storage.items.keys()]).toEqual(["app:theme"]);
    expect(unsentMessages(storage, "ses_a")).toEqual([]);
    expect(unsentMessages(storage)).toEqual([]);
  });
});
