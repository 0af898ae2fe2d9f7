import type { ProtocolEvent } from "@hitl-kit/protocol";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { defaultFrameScheduler, eventPacer, FRAME_MS } from "../src/event-pacer.js";
import { manualFrames } from "./manual-frames.js";

const delta = (seq: number): ProtocolEvent => ({
  seq,
  sessionId: "s",
  at: "now",
  type: "text.delta",
  messageId: "m",
  delta: "w ",
});
const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe("eventPacer", () => {
  let batches: number[][];
  beforeEach(() => {
    batches = [];
  });
  const record = (events: ProtocolEvent[]) => batches.push(events.map((event) => event.seq));

  it("delivers everything pushed within a frame as one batch at that frame, in order", () => {
    const frames = manualFrames();
    const paced = eventPacer(record, frames.schedule);
    for (let seq = 1; seq <= 20_000; seq++) paced.push(delta(seq));
    expect(batches).toEqual([]);
    expect(frames.waiting()).toBe(1);
    frames.frame();
    expect(batches).toEqual([seqs(1, 20_000)]);
    for (let seq = 20_001; seq <= 20_003; seq++) paced.push(delta(seq));
    frames.frame();
    frames.frame();
    expect(batches).toEqual([seqs(1, 20_000), seqs(20_001, 20_003)]);
  });

  it("delivers at most one batch per frame at a token rate, none lost", () => {
    const frames = manualFrames();
    const paced = eventPacer(record, frames.schedule);
    // 100 deltas/s on a 60 Hz display: one or two deltas land in each frame.
    let seq = 0;
    for (let frame = 0; frame < 60; frame++) {
      const due = Math.floor(((frame + 1) * 100) / 60);
      while (seq < due) paced.push(delta(++seq));
      frames.frame();
    }
    expect(batches.length).toBeLessThanOrEqual(60);
    expect(batches.flat()).toEqual(seqs(1, 100));
  });

  it("flushes what is queued at once, and drops it when stopped", () => {
    const frames = manualFrames();
    const paced = eventPacer(record, frames.schedule);
    paced.push(delta(1));
    paced.push(delta(2));
    paced.flush();
    expect(batches).toEqual([[1, 2]]);
    expect(frames.waiting()).toBe(0);
    paced.push(delta(3));
    paced.stop();
    frames.frame();
    expect(batches).toEqual([[1, 2]]);
  });
});

describe("eventPacer.drained", () => {
  it("resolves at once when nothing is queued, else once the queue is delivered or dropped", async () => {
    const frames = manualFrames();
    const paced = eventPacer(() => {}, frames.schedule);
    let drained = 0;
    const count = () => {
      drained++;
    };
    await paced.drained().then(count);
    expect(drained).toBe(1);
    paced.push(delta(1));
    const first = paced.drained().then(count);
    await Promise.resolve();
    expect(drained).toBe(1);
    frames.frame();
    await first;
    expect(drained).toBe(2);
    paced.push(delta(2));
    const second = paced.drained().then(count);
    paced.stop();
    await second;
    expect(drained).toBe(3);
  });
});

describe("defaultFrameScheduler without requestAnimationFrame", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("delivers a lone event after the current task, and bursts a frame apart", () => {
    expect(globalThis.requestAnimationFrame).toBeUndefined();
    const batches: number[][] = [];
    const paced = eventPacer((events) => batches.push(events.map((event) => event.seq)), defaultFrameScheduler());
    paced.push(delta(1));
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(batches).toEqual([[1]]);
    for (let seq = 2; seq <= 50; seq++) paced.push(delta(seq));
    vi.advanceTimersByTime(FRAME_MS / 2);
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(FRAME_MS / 2);
    expect(batches).toEqual([[1], seqs(2, 50)]);
  });
});

describe("defaultFrameScheduler with requestAnimationFrame", () => {
  // A page's frames and visibility, driven by the test.
  let frames = new Map<number, FrameRequestCallback>();
  let nextFrame = 0;
  const page = Object.assign(new EventTarget(), { visibilityState: "visible" as DocumentVisibilityState });
  const runFrame = () => {
    const due = frames;
    frames = new Map();
    for (const callback of due.values()) callback(performance.now());
  };
  const setVisibility = (state: DocumentVisibilityState) => {
    page.visibilityState = state;
    page.dispatchEvent(new Event("visibilitychange"));
  };
  beforeAll(() => {
    vi.stubGlobal("document", page);
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => {
      frames.set(++nextFrame, callback);
      return nextFrame;
    });
    vi.stubGlobal("cancelAnimationFrame", (id: number) => frames.delete(id));
  });
  afterAll(() => vi.unstubAllGlobals());
  beforeEach(() => {
    vi.useFakeTimers();
    frames = new Map();
    page.visibilityState = "visible";
  });
  afterEach(() => vi.useRealTimers());

  it("runs at the next frame in a visible page, with no timer beside it", () => {
    const ran = vi.fn();
    defaultFrameScheduler()(ran);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(ran).not.toHaveBeenCalled();
    runFrame();
    expect(ran).toHaveBeenCalledTimes(1);
    runFrame();
    expect(ran).toHaveBeenCalledTimes(1);
  });

  it("runs at once when the page goes hidden before the frame, and not again at the frame", () => {
    const ran = vi.fn();
    defaultFrameScheduler()(ran);
    setVisibility("visible");
    expect(ran).not.toHaveBeenCalled();
    setVisibility("hidden");
    expect(ran).toHaveBeenCalledTimes(1);
    setVisibility("visible");
    runFrame();
    expect(ran).toHaveBeenCalledTimes(1);
  });

  it("runs on a timer in a hidden page, where no frame comes", () => {
    page.visibilityState = "hidden";
    const ran = vi.fn();
    defaultFrameScheduler()(ran);
    expect(frames.size).toBe(0);
    vi.advanceTimersByTime(99);
    expect(ran).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(ran).toHaveBeenCalledTimes(1);
  });

  it("runs nothing once cancelled, whatever comes", () => {
    const visible = vi.fn();
    defaultFrameScheduler()(visible)();
    runFrame();
    setVisibility("hidden");
    const hidden = vi.fn();
    defaultFrameScheduler()(hidden)();
    vi.advanceTimersByTime(1_000);
    expect(visible).not.toHaveBeenCalled();
    expect(hidden).not.toHaveBeenCalled();
  });
});
