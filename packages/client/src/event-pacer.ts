import type { ProtocolEvent } from "@hitl-kit/protocol";

/** One frame of a 60 Hz display, in milliseconds. */
export const FRAME_MS = 1000 / 60;
/**
 * How long a batch waits in a hidden page, where no animation frame comes (a hidden tab
 * pauses `requestAnimationFrame`): there the stream keeps being applied, slowly, in the
 * background. A visible page waits for its frame, however late, so a long task cannot make
 * two renders land in one frame.
 */
const HIDDEN_FRAME_MS = 100;

const isHidden = () => typeof document !== "undefined" && document.visibilityState === "hidden";

/**
 * The batches waiting for a frame in a visible page, run at once if the page goes hidden
 * before their frame comes. One `visibilitychange` listener serves them all (added with the
 * first), so a frame costs no timer to set and clear: at a token rate that was a tenth of
 * the pacer's own work.
 */
const waitingForFrame = new Set<() => void>();
let watchingVisibility = false;
function runWaitingIfHidden(): void {
  if (!isHidden()) return;
  for (const run of [...waitingForFrame]) run();
}

/** Hands events on at most once per frame; see {@link eventPacer}. */
export interface EventPacer {
  /** Queues an event, to be delivered with the others of its frame. */
  push(event: ProtocolEvent): void;
  /** Delivers whatever is queued, now (before a reconnect reads `lastSeq`, or a failure is reported). */
  flush(): void;
  /** Drops the queue and the pending frame (the stream was closed for good). */
  stop(): void;
  /** Resolves once the queue is delivered (or dropped); at once when it is empty. */
  drained(): Promise<void>;
}

/** Runs `callback` at the next frame; returns the function that cancels it. */
export type FrameScheduler = (callback: () => void) => () => void;

/**
 * The next animation frame where there is one (a browser): in a hidden tab, a timer instead
 * (`HIDDEN_FRAME_MS`), and a batch waiting for a frame when the tab goes hidden runs at once.
 * Elsewhere (Node, tests), a timer that keeps deliveries at least a frame apart, so a lone
 * event waits only for the current task to end.
 */
export function defaultFrameScheduler(): FrameScheduler {
  const raf = globalThis.requestAnimationFrame as typeof requestAnimationFrame | undefined;
  if (typeof raf === "function") {
    return (callback) => {
      let done = false;
      let frame: number | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // A frame that comes after the page went hidden and back finds `done` set.
      const run = () => {
        if (done) return;
        done = true;
        waitingForFrame.delete(run);
        callback();
      };
      const cancel = () => {
        done = true;
        waitingForFrame.delete(run);
        if (frame !== undefined) cancelAnimationFrame(frame);
        if (timer !== undefined) clearTimeout(timer);
      };
      if (isHidden()) {
        timer = setTimeout(run, HIDDEN_FRAME_MS);
        return cancel;
      }
      frame = raf(run);
      if (!watchingVisibility && typeof document !== "undefined") {
        watchingVisibility = true;
        document.addEventListener("visibilitychange", runWaitingIfHidden);
      }
      waitingForFrame.add(run);
      return cancel;
    };
  }
  let last = Number.NEGATIVE_INFINITY;
  return (callback) => {
    const timer = setTimeout(
      () => {
        last = performance.now();
        callback();
      },
      Math.max(0, last + FRAME_MS - performance.now()),
    );
    return () => clearTimeout(timer);
  };
}

/**
 * Paces a stream's events to the display: every event is queued and the queue is delivered
 * as one batch, in order, at the next animation frame. The client applies a batch as one
 * state change, so a UI commits at most once per frame at any rate — one token at a time
 * or a backlog of thousands — and no event waits longer than one frame.
 *
 * No event type skips the queue, `input.requested` included: it waits under a frame (below
 * what a person notices), and delivering it early would spend a second render in that
 * frame. Only {@link EventPacer.flush} delivers at once: before a reconnect reads `lastSeq`,
 * and before a failure or the stream's end is reported.
 */
export function eventPacer(
  deliver: (events: ProtocolEvent[]) => void,
  schedule: FrameScheduler = defaultFrameScheduler(),
): EventPacer {
  let queue: ProtocolEvent[] = [];
  let cancel: (() => void) | undefined;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const flush = () => {
    cancel?.();
    cancel = undefined;
    const events = queue;
    queue = [];
    if (events.length > 0) deliver(events);
    wake();
  };
  return {
    push(event) {
      queue.push(event);
      cancel ??= schedule(flush);
    },
    flush,
    stop() {
      cancel?.();
      cancel = undefined;
      queue = [];
      wake();
    },
    drained() {
      if (queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
