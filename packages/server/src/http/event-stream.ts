import { eventFrameEncoder, type ProtocolEvent } from "@hitl-kit/protocol";
import { encodeComment } from "@hitl-kit/protocol/internal";
import type { AgentRuntime } from "../runtime/agent-runtime-types.js";

const encoder = new TextEncoder();
const PAGE = 500;
/** Bytes a stream may hold for a slow reader before it stops buffering and falls behind. */
const BUFFERED_BYTES = 16 * 1024;

/**
 * A session's SSE stream: every event after `afterSeq`, then live events, each exactly once
 * and in order, with a heartbeat comment while idle. Live events are written straight to
 * a reader that keeps up; a reader that falls behind gets nothing buffered for it — the
 * stream notes how far it got and reads the rest from the store when the reader drains,
 * so a slow client costs the server no memory. It ends when the session is deleted.
 */
export function eventStream(
  runtime: AgentRuntime,
  sessionId: string,
  afterSeq: number,
  options: {
    heartbeatMs: number;
    signal: AbortSignal;
    onClose?: () => void;
    /** A read of the store failed: the stream ends (the client reconnects and resumes), and this reports why. */
    onFailure?: (error: unknown) => void;
  },
): ReadableStream<Uint8Array> {
  const encodeFrame = eventFrameEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let lastSent = afterSeq; // the newest seq written to the stream
  let latest = afterSeq; // the newest seq known to be in the store
  let behind = true; // the store holds events not written yet: replay them first
  let closed = false;
  let reading: Promise<void> | undefined;
  let stop = () => {};

  // Frames sent in one go (a write's events, a page read back) leave as one chunk: one
  // socket write, not one per event.
  let unsent = "";
  const flush = () => {
    if (unsent === "" || closed) return;
    controller.enqueue(encoder.encode(unsent));
    unsent = "";
  };
  const room = () => !closed && (controller.desiredSize ?? 0) > 0;
  const send = (event: ProtocolEvent) => {
    if (closed || event.seq <= lastSent) return;
    lastSent = event.seq;
    if (unsent === "") queueMicrotask(flush);
    unsent += encodeFrame(event);
  };
  // Ended, not errored: the host would print an errored body's stack for every stream (an
  // outage fails them all), and a client reconnects after an end just the same.
  const fail = (error: unknown) => {
    if (closed) return;
    flush();
    stop();
    controller.close();
    options.onFailure?.(error);
  };

  /** Reads from the store until caught up with `latest`, or until the reader has no room. */
  const catchUp = (): Promise<void> =>
    (reading ??= (async () => {
      try {
        while (behind && room()) {
          const page = await runtime.readEvents(sessionId, lastSent, PAGE);
          for (const event of page) send(event);
          // A short page means the store is exhausted; events published meanwhile raised `latest`.
          if (page.length < PAGE && lastSent >= latest) behind = false;
        }
      } catch (error) {
        fail(error);
      } finally {
        reading = undefined;
      }
    })());

  const onEvent = (event: ProtocolEvent) => {
    latest = Math.max(latest, event.seq);
    if (closed) return;
    if (!behind && event.seq === lastSent + 1 && room()) return send(event);
    behind = true;
    if (room()) void catchUp();
  };

  return new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        // Listen before reading the store, so an event appended in between is not missed;
        // a deleted session's stream ends after the events that closed its turn.
        const unsubscribe = runtime.subscribe(sessionId, onEvent, () => leave());
        const heartbeat = setInterval(() => {
          if (room()) controller.enqueue(encoder.encode(encodeComment("ping")));
        }, options.heartbeatMs);
        heartbeat.unref?.();
        stop = () => {
          closed = true;
          unsubscribe();
          clearInterval(heartbeat);
          options.onClose?.();
        };
        const leave = () => {
          if (closed) return;
          flush();
          stop();
          controller.close();
        };
        if (options.signal.aborted) return leave();
        options.signal.addEventListener("abort", leave);
        controller.enqueue(encoder.encode("retry: 1000\n\n"));
      },
      pull() {
        if (behind) return catchUp();
      },
      cancel() {
        stop();
      },
    },
    // A plain strategy, not `ByteLengthQueuingStrategy`: Jest's jsdom environment has the
    // streams but not that global, and the stream failed there.
    { highWaterMark: BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
  );
}
