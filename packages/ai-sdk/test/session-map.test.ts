import { afterEach, describe, expect, it, vi } from "vitest";
import { memorySessionMap } from "../src/index.js";
import { storedSessionMap } from "../src/session-map.js";

describe("where a transport remembers each chat's session", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("keeps them in localStorage, keyed by the handler's url", () => {
    const items = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => items.set(key, value),
    });
    const map = storedSessionMap("/api/agent");
    map.set("chat-1", "ses_1");
    expect(storedSessionMap("/api/agent").get("chat-1")).toBe("ses_1");
    expect(storedSessionMap("/other").get("chat-1")).toBeUndefined();
    expect([...items.keys()]).toEqual(["hitl-kit:ai-sdk:/api/agent:chat-1"]);
  });

  it("falls back to memory where localStorage is missing or throws", () => {
    vi.stubGlobal("localStorage", {
      getItem: () => {
        throw new Error("no storage file");
      },
    });
    const map = storedSessionMap("/api/agent");
    map.set("chat-1", "ses_1");
    expect(map.get("chat-1")).toBe("ses_1");
    const memory = memorySessionMap();
    expect(memory.get("chat-1")).toBeUndefined();
  });
});
