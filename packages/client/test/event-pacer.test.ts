import type { ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eventPacer, FRAME_MS } from "../src/event-pacer.js";

const delta = (seq: number): ProtocolEvent => ({
  seq,
  sessionId: "s",
  at: "now",
  type: "text.delta",
  messageId: "m",
  delta: "w ",
});

describe("eventPacer", () => {
  let batches: number[][];
  beforeEach(() => {
    vi.useFakeTimers();
    batches = [];
  });
  afterEach(() => vi.useRealTimers());
  const pacer = () => eventPacer((events) => batches.push(events.map((event) => event.seq)));

  it("delivers a lone event at once", () => {
    pacer().push(delta(1));
    expect(batches).toEqual([[1]]);
  });

  it("delivers a burst as one batch, in order, within a frame", () => {
    const paced = pacer();
    for (let seq = 1; seq <= 50; seq++) paced.push(delta(seq));
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(FRAME_MS);
    expect(batches).toEqual([[1], Array.from({ length: 49 }, (_, index) => index + 2)]);
  });

  it("flushes what is queued at once, and drops it when stopped", () => {
    const paced = pacer();
    paced.push(delta(1));
    paced.push(delta(2));
    paced.flush();
    expect(batches).toEqual([[1], [2]]);
    paced.push(delta(3));
    paced.stop();
    vi.advanceTimersByTime(FRAME_MS);
    expect(batches).toEqual([[1], [2]]);
  });
});
