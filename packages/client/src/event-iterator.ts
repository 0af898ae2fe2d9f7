import type { ProtocolEvent } from "@hitl-kit/protocol";
import { ApiError } from "./api-error.js";
import type { EventSink } from "./transport.js";

/** Opens a sink-fed stream that resumes after `lastSeq()`; returns the function that closes it. */
export type OpenSinkStream = (sink: EventSink, lastSeq: () => number) => () => void;

/**
 * A sink-fed event stream as an async iterator: opened at the first `next()`, events
 * queued in order (each seq once) until read, closed by `return()` (a `for await` that
 * breaks) or `signal`. A failure of the stream is thrown from `next()` once the events
 * before it are read.
 */
export function eventIterator(
  open: OpenSinkStream,
  after: number,
  signal?: AbortSignal,
): AsyncIterableIterator<ProtocolEvent> {
  let queue: ProtocolEvent[] = [];
  let head = 0;
  let lastSeq = after;
  let failure: ApiError | undefined;
  let done = signal?.aborted ?? false;
  let close: (() => void) | undefined;
  let wake: (() => void) | undefined;

  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const push = (event: ProtocolEvent) => {
    if (done || event.seq <= lastSeq) return;
    lastSeq = event.seq;
    queue.push(event);
    notify();
  };
  const finish = () => {
    if (done) return;
    done = true;
    signal?.removeEventListener("abort", abort);
    close?.();
    notify();
  };
  // An abort ends the loop at once: what arrived and was not taken yet is dropped too.
  const abort = () => {
    queue = [];
    head = 0;
    failure = undefined;
    finish();
  };
  const sink: EventSink = {
    event: push,
    events: (events) => {
      for (const event of events) push(event);
    },
    connection: () => {},
    fail: (error) => {
      failure =
        error instanceof ApiError
          ? error
          : new ApiError(error.code, error.message, { status: 0, details: error.details });
      finish();
    },
  };
  signal?.addEventListener("abort", abort, { once: true });

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<ProtocolEvent>> {
      for (;;) {
        if (head < queue.length) {
          const value = queue[head++]!;
          if (head === queue.length) {
            queue = [];
            head = 0;
          }
          return { done: false, value };
        }
        if (failure) {
          const error = failure;
          failure = undefined;
          throw error;
        }
        if (done) return { done: true, value: undefined };
        close ??= open(sink, () => lastSeq);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    async return(): Promise<IteratorResult<ProtocolEvent>> {
      finish();
      queue = [];
      head = 0;
      return { done: true, value: undefined };
    },
  };
}
