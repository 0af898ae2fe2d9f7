import { describe, expect, it } from "vitest";
import { ExpiryTimer } from "../src/runtime/expiry-timer.js";
import { memoryStore } from "../src/store/memory-store.js";

/** A memory store whose reads of the earliest expiry wait until the test lets them answer. */
function storeWithSlowReads() {
  const store = memoryStore();
  const reads: ((next: number | undefined) => void)[] = [];
  const slow = { ...store, nextExpiry: () => new Promise<number | undefined>((resolve) => reads.push(resolve)) };
  /** Answers the `index`th read made (from 0). */
  const answerRead = (index: number, next: number | undefined) => reads[index]!(next);
  return { store: slow, answer: (next: number | undefined) => answerRead(reads.length - 1, next), answerRead };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("ExpiryTimer", () => {
  it("says a request may be due until it has read the store's earliest expiry", async () => {
    const { store, answer } = storeWithSlowReads();
    const timer = new ExpiryTimer(store, async () => {});
    expect(timer.mayHaveDue(Date.now())).toBe(true);
    timer.schedule();
    answer(undefined);
    await settled();
    expect(timer.mayHaveDue(Date.now() + 1e9)).toBe(false);
    timer.stop();
  });

  it("lowers its floor for each request the runtime opens", async () => {
    const { store, answer } = storeWithSlowReads();
    const timer = new ExpiryTimer(store, async () => {});
    timer.schedule();
    answer(5_000);
    await settled();
    expect(timer.mayHaveDue(4_999)).toBe(false);
    timer.opened(3_000);
    expect(timer.mayHaveDue(2_999)).toBe(false);
    expect(timer.mayHaveDue(3_000)).toBe(true);
    timer.stop();
  });

  it("keeps a request opened while a read was under way, though the read missed it", async () => {
    const { store, answerRead } = storeWithSlowReads();
    const expired: string[] = [];
    const timer = new ExpiryTimer(
      { ...store, listExpiredRequests: async () => (expired.length === 0 ? [{ sessionId: "s", requestId: "r" }] : []) },
      async (_sessionId, requestId) => {
        expired.push(requestId);
      },
    );
    timer.schedule(); // read 0 begins before the request's write…
    const soon = Date.now() + 20;
    timer.opened(soon); // …which starts read 1, and that one sees it
    answerRead(1, soon);
    await settled();
    answerRead(0, Date.now() + 60_000); // read 0 answers last, without the request
    await settled();
    expect(timer.mayHaveDue(soon - 1)).toBe(false);
    expect(timer.mayHaveDue(soon)).toBe(true);
    // The timer is still set for the request, and fires for it.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(expired).toEqual(["r"]);
    timer.stop();
  });
});
