import type { FrameScheduler } from "../src/event-pacer.js";

/** Frames that run only when the test says so, like a display's. */
export function manualFrames() {
  let callbacks: (() => void)[] = [];
  const schedule: FrameScheduler = (callback) => {
    callbacks.push(callback);
    return () => {
      callbacks = callbacks.filter((queued) => queued !== callback);
    };
  };
  const frame = () => {
    const due = callbacks;
    callbacks = [];
    for (const callback of due) callback();
  };
  return { schedule, frame, waiting: () => callbacks.length };
}
