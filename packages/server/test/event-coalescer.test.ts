import type { EventInput } from "@hitl-kit/protocol";
import { describe, expect, it, vi } from "vitest";
import { eventCoalescer } from "../src/runtime/event-coalescer.js";

const delta = (messageId: string, text: string): EventInput => ({ type: "text.delta", messageId, delta: text });

function recorder(fail?: (batch: EventInput[]) => boolean) {
  const batches: EventInput[][] = [];
  const failed: EventInput[][] = [];
  return {
    batches,
    failed,
    write: async (batch: EventInput[]) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (fail?.(batch)) {
        failed.push(batch);
        throw new Error("disk full");
      }
      batches.push(batch);
    },
  };
}

describe("eventCoalescer", () => {
  it("writes a burst as one batch, joining a message's consecutive deltas, in order", async () => {
    const store = recorder();
    const coalescer = eventCoalescer(store.write, { maxDelayMs: 5 });
    await coalescer.emit([{ type: "message.started", messageId: "m", role: "assistant" }, delta("m", "Hel")]);
    await coalescer.emit([delta("m", "lo ")]);
    await coalescer.emit([{ type: "reasoning.delta", messageId: "m", delta: "hm" }, delta("m", "world")]);
    await coalescer.flush();
    expect(store.batches).toEqual([
      [
        { type: "message.started", messageId: "m", role: "assistant" },
        delta("m", "Hello "),
        { type: "reasoning.delta", messageId: "m", delta: "hm" },
        delta("m", "world"),
      ],
    ]);
  });

  it("writes what waits after at most maxDelayMs, one batch at a time", async () => {
    const store = recorder();
    const coalescer = eventCoalescer(store.write, { maxDelayMs: 5 });
    await coalescer.emit([delta("m", "a")]);
    // Written by the timer, without a flush (waited for generously: a loaded machine runs timers late).
    await vi.waitFor(() => expect(store.batches).toEqual([[delta("m", "a")]]), { timeout: 2_000, interval: 5 });
    await coalescer.emit([delta("m", "b")]);
    await coalescer.flush();
    expect(store.batches).toEqual([[delta("m", "a")], [delta("m", "b")]]);
  });

  it("bounds a batch's events and a joined delta's length", async () => {
    const store = recorder();
    const coalescer = eventCoalescer(store.write, { maxDelayMs: 1_000, maxEvents: 3, maxDeltaLength: 4 });
    for (const text of ["ab", "cd", "ef", "gh", "ij", "kl", "mn"]) await coalescer.emit([delta("m", text)]);
    await coalescer.flush();
    expect(store.batches.map((batch) => batch.map((event) => (event as { delta: string }).delta))).toEqual([
      ["abcd", "efgh", "ij"], // the third event fills the batch: it is written at once
      ["klmn"],
    ]);
  });

  it("reports a failed write to the next emit and to flush, and writes nothing after it", async () => {
    const store = recorder((batch) => batch.some((event) => (event as { delta?: string }).delta === "boom"));
    const coalescer = eventCoalescer(store.write, { maxDelayMs: 1 });
    await coalescer.emit([delta("m", "boom")]);
    // The timer's write has failed (waited for generously: a loaded machine runs timers late).
    await vi.waitFor(() => expect(store.failed).toHaveLength(1), { timeout: 2_000, interval: 5 });
    await expect(coalescer.emit([delta("n", "later")])).rejects.toThrow("disk full");
    await expect(coalescer.flush()).rejects.toThrow("disk full");
    expect(store.batches).toEqual([]);
  });
});
