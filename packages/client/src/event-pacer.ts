import type { ProtocolEvent } from "@hitl-kit/protocol";

/** One frame of a 60 Hz display, in milliseconds. */
export const FRAME_MS = 1000 / 60;
/**
 * A quarter frame: a queued event waits at most this long, so applying and rendering it
 * still fit in the frame even when the machine is busy (half a frame measured up to 1.2
 * frames of hidden text on a loaded 2-core machine).
 */
const PACE_MS = FRAME_MS / 4;

/** Hands events on at most once per frame; see {@link eventPacer}. */
export interface EventPacer {
  /** Queues an event: delivered now when the last delivery was a quarter frame ago or more, else then. */
  push(event: ProtocolEvent): void;
  /** Delivers whatever is queued, now (before a reconnect reads `lastSeq`, or a failure is reported). */
  flush(): void;
  /** Drops the queue and the timer (the stream was closed for good). */
  stop(): void;
}

/**
 * Paces a stream's events to the display: a lone event is delivered at once, but events
 * arriving faster than that are queued and delivered together, in order, a quarter frame
 * after the last delivery. The client applies each batch as one state change, so a UI
 * renders a few times per frame instead of once per token, and text waits less than one
 * frame before it can be shown.
 */
export function eventPacer(deliver: (events: ProtocolEvent[]) => void): EventPacer {
  let queue: ProtocolEvent[] = [];
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    last = performance.now();
    const events = queue;
    queue = [];
    if (events.length > 0) deliver(events);
  };
  return {
    push(event) {
      queue.push(event);
      if (timer !== undefined) return;
      const sinceLast = performance.now() - last;
      if (sinceLast >= PACE_MS) flush();
      else timer = setTimeout(flush, PACE_MS - sinceLast);
    },
    flush() {
      if (queue.length > 0 || timer !== undefined) flush();
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      queue = [];
    },
  };
}
