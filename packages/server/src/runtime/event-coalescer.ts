import type { EventInput } from "@hitl-kit/protocol";

/** Options of {@link eventCoalescer}. */
export interface CoalescerOptions {
  /** The longest an event waits before it is written (default 8 ms: half a frame). */
  maxDelayMs?: number;
  /** Write at once when this many events wait (default 256). */
  maxEvents?: number;
  /** The longest delta that joining deltas makes (default 1,024 characters). */
  maxDeltaLength?: number;
}

/** Buffers a model step's streamed events and writes them in batches: see {@link eventCoalescer}. */
export interface EventCoalescer {
  /** Queues events, in order; resolves at once. A failed write is thrown by the next call or by `flush`. */
  emit(events: EventInput[]): Promise<void>;
  /** Writes whatever waits, and resolves when every queued event is written. */
  flush(): Promise<void>;
  /**
   * Waits for the writes under way and hands back what waits instead of writing it, for the
   * caller to write with the rest of its batch (one transaction fewer).
   */
  drain(): Promise<EventInput[]>;
}

/**
 * Turns a model's token stream into few durable writes instead of one transaction per
 * token: events queue for at most `maxDelayMs` (or until `maxEvents` wait), then go to
 * `write` as one batch, in order, one batch at a time, with consecutive deltas of one
 * message joined into one event. Nothing is reordered, and nothing is published before it
 * is written, so nothing acknowledged is lost.
 */
export function eventCoalescer(
  write: (events: EventInput[]) => Promise<void>,
  { maxDelayMs = 8, maxEvents = 256, maxDeltaLength = 1024 }: CoalescerOptions = {},
): EventCoalescer {
  let queued: EventInput[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;

  const writeQueued = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return writing;
    const batch = queued;
    queued = [];
    writing = writing.then(() =>
      failure
        ? undefined
        : write(batch).catch((error: unknown) => {
            failure = { error };
          }),
    );
    return writing;
  };
  const rethrow = () => {
    if (failure) throw failure.error;
  };

  return {
    async emit(events) {
      rethrow();
      for (const event of events) append(queued, event, maxDeltaLength);
      if (queued.length >= maxEvents) void writeQueued();
      else timer ??= setTimeout(() => void writeQueued(), maxDelayMs);
    },
    async flush() {
      await writeQueued();
      rethrow();
    },
    async drain() {
      clearTimeout(timer);
      timer = undefined;
      await writing;
      rethrow();
      const rest = queued;
      queued = [];
      return rest;
    },
  };
}

/** Appends an event, joining it to the previous one when both are deltas of the same kind and message. */
function append(queue: EventInput[], event: EventInput, maxDeltaLength: number): void {
  const last = queue.at(-1);
  if (
    last &&
    (event.type === "text.delta" || event.type === "reasoning.delta") &&
    last.type === event.type &&
    last.messageId === event.messageId &&
    last.delta.length + event.delta.length <= maxDeltaLength
  ) {
    queue[queue.length - 1] = { ...last, delta: last.delta + event.delta };
    return;
  }
  queue.push(event);
}
