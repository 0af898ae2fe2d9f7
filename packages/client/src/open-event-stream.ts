import { EVENT_TYPES, eventFrameDecoder } from "@hitl-kit/protocol";
import { createParser } from "eventsource-parser";
import { ApiError, badResponseError, errorOfResponse } from "./api-error.js";
import { type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
import { eventPacer, type FrameScheduler } from "./event-pacer.js";
import { nextTask, SLICE_MS } from "./next-task.js";
import { outdatedClientError } from "./protocol-version.js";
import { isRetryableStatus } from "./retry.js";
import type { EventSink, StreamOptions } from "./transport.js";

const knownTypes = new Set<string>(EVENT_TYPES);
/** The most text fed to the SSE parser at once (a chunk can hold a whole backlog). */
const FEED_CHARS = 16_384;
/** A stream still heard from this long after it opened did not drop at once. */
const LIVED_MS = 1_000;

/** Opens one SSE request for the events after `lastSeq`. */
export type ConnectStream = (lastSeq: number, signal: AbortSignal) => Promise<Response>;

type ReadOutcome = { kind: "dropped"; progressed: boolean } | { kind: "fatal"; error: ApiError };

/** Options of {@link openEventStream}. */
export interface OpenEventStreamOptions extends StreamOptions {
  sessionId: string;
  backoff?: BackoffOptions;
  /** Reconnects in a row without an event (or a heartbeat a second or more after opening) before the sink is failed with `network` (default: no limit). */
  maxRetries?: number;
  /** When the events read are handed on (default: `defaultFrameScheduler()`, the display's frames). */
  frames?: FrameScheduler;
  /**
   * How long a stream may stay silent — no answer to the request, no event, no heartbeat —
   * before it counts as dropped and is reopened (default 45 000 ms: three of the server's
   * 15 s heartbeats). A connection that hangs is otherwise never given up.
   */
  silenceMs?: number;
}

/**
 * Keeps a session's event stream open: reads it (`TextDecoder → eventsource-parser
 * → eventFrameDecoder`), hands events to the sink in batches paced to the display (see `eventPacer`), and
 * when it drops or ends, reconnects after a backoff with `lastSeq()` as
 * the resume point. At a token rate it reads once per frame: after a chunk that it waited
 * for, the next read waits for the frame that shows the chunk's events, so what arrives in
 * between is read in one chunk and shown at the frame after (at most a frame later). A
 * chunk that was already queued (a backlog) is followed by the next read at once. An answer retrying cannot fix (404, 403, …), an undecodable event
 * (`bad_response`), a server of a newer protocol version (`client_outdated`) or more than `maxRetries` reconnects in a row without an event
 * (`network`) fail the sink with an `ApiError` and stop. Returns the function that closes
 * the stream for good.
 */
export function openEventStream(connect: ConnectStream, options: OpenEventStreamOptions): () => void {
  const { sink, lastSeq, backoff, sessionId, maxRetries = Number.POSITIVE_INFINITY, frames } = options;
  const silenceMs = options.silenceMs ?? 45_000;
  const abort = new AbortController();
  const run = async () => {
    sink.connection("connecting");
    for (let attempt = 0; ; ) {
      const outcome = await readOnce(connect, lastSeq(), { sessionId, sink, signal: abort.signal, frames }, silenceMs);
      if (abort.signal.aborted) return;
      if (outcome.kind === "fatal") return sink.fail(outcome.error);
      // Only a stream that delivered something (an event, or a heartbeat after its first
      // second: an idle stream that lived) resets the backoff, so a server that accepts and
      // at once drops the stream is not hammered.
      if (outcome.progressed) attempt = 0;
      if (attempt >= maxRetries) {
        const message = `The event stream of ${sessionId} dropped ${attempt + 1} times in a row; check the connection and try again.`;
        return sink.fail(new ApiError("network", message, { status: 0 }));
      }
      // Down from the drop on, through the wait: said now, not once the next try starts.
      sink.connection("reconnecting");
      await sleep(backoffDelay(attempt++, backoff), abort.signal);
      if (abort.signal.aborted) return;
    }
  };
  void run();
  return () => {
    if (abort.signal.aborted) return;
    abort.abort();
    sink.connection("closed");
  };
}

/** What one read of the stream needs: where events go, and when the stream is closed for good (`signal`). */
interface ReadContext {
  sessionId: string;
  sink: EventSink;
  signal: AbortSignal;
  frames: FrameScheduler | undefined;
}

async function readOnce(
  connect: ConnectStream,
  after: number,
  context: ReadContext,
  silenceMs: number,
): Promise<ReadOutcome> {
  // This connection ends when the stream is closed, or when it has been silent too long.
  const connection = new AbortController();
  const drop = () => connection.abort();
  context.signal.addEventListener("abort", drop, { once: true });
  let silence = setTimeout(drop, silenceMs);
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(drop, silenceMs);
  };
  try {
    return await readConnection(() => connect(after, connection.signal), context, heard);
  } finally {
    clearTimeout(silence);
    context.signal.removeEventListener("abort", drop);
  }
}

async function readConnection(
  connect: () => Promise<Response>,
  { sessionId, sink, signal, frames }: ReadContext,
  heard: () => void,
): Promise<ReadOutcome> {
  let response: Response;
  try {
    response = await connect();
  } catch {
    return { kind: "dropped", progressed: false };
  }
  const outdated = outdatedClientError(response);
  if (outdated) {
    // Its events may mean what this client cannot tell: stop, and say to reload, instead of reconnecting.
    response.body?.cancel().catch(() => {});
    return { kind: "fatal", error: outdated };
  }
  if (!response.ok) {
    const body = await response.json().catch(() => undefined);
    const error = errorOfResponse(response.status, body);
    return isRetryableStatus(response.status) ? { kind: "dropped", progressed: false } : { kind: "fatal", error };
  }
  if (!response.body) return { kind: "dropped", progressed: false };
  sink.connection("open");
  const opened = performance.now();
  // The body is read, decoded and parsed in one loop: each TransformStream stage
  // (TextDecoderStream, EventSourceParserStream) costs promise hops per chunk, which
  // was a third of the client's time per token.
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let progressed = false;
  let fatal: ApiError | undefined;
  const pacer = eventPacer((events) => {
    if (!signal.aborted) sink.events(events);
  }, frames);
  const decodeFrame = eventFrameDecoder(sessionId);
  const parser = createParser({
    onEvent(frame) {
      // An event type from a newer server is skipped, not fatal; a known type that fails to decode is.
      if (fatal || (frame.event && !knownTypes.has(frame.event))) return;
      try {
        pacer.push(decodeFrame(frame));
        progressed = true;
      } catch (error) {
        fatal = badResponseError("event stream", response.status, error);
      }
    },
  });
  // A backlog is fed in slices, with a new task every SLICE_MS, so parsing thousands of
  // buffered events never blocks the page in one long task.
  let sliceStart = performance.now();
  try {
    for (;;) {
      const waitStart = performance.now();
      const reading = reader.read();
      // Whether the chunk was already in the stream's queue: its read settles before a
      // microtask queued after it runs.
      let settled = false;
      reading.then(
        () => {
          settled = true;
        },
        () => {},
      );
      await undefined;
      const queued = settled;
      const { done, value } = await reading;
      if (done) return { kind: "dropped", progressed };
      heard();
      sink.heard?.();
      if (performance.now() - opened > LIVED_MS) progressed = true;
      if (performance.now() - waitStart > 1) sliceStart = performance.now(); // the read waited: a new task
      const text = decoder.decode(value, { stream: true });
      for (let at = 0; at < text.length; at += FEED_CHARS) {
        parser.feed(at === 0 && text.length <= FEED_CHARS ? text : text.slice(at, at + FEED_CHARS));
        if (fatal) return { kind: "fatal", error: fatal };
        if (performance.now() - sliceStart > SLICE_MS) {
          await nextTask();
          if (signal.aborted) return { kind: "dropped", progressed };
          sliceStart = performance.now();
        }
      }
      // At a token rate, the next read waits for the frame that shows this chunk's events:
      // what arrives meanwhile is read after that frame in one chunk (a fetch body hands
      // over all it holds), so a read and its task come once per frame, not per token (at
      // 100 tokens/s on a 60 Hz display, 40% fewer reads). A chunk that was already queued
      // is a backlog: read on.
      if (!queued) {
        await pacer.drained();
        if (signal.aborted) return { kind: "dropped", progressed };
        // The frame ended the task: what is read next starts a new slice, not one more task.
        sliceStart = performance.now();
      }
    }
  } catch {
    return { kind: "dropped", progressed };
  } finally {
    // Whatever arrived is applied before a reconnect reads lastSeq or a failure is reported.
    pacer.flush();
    reader.cancel().catch(() => {});
  }
}
