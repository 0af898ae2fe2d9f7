import { decodeEvent, EVENT_TYPES, ProtocolError } from "@hitl-kit/protocol";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
import { errorOfResponse } from "./http-json.js";
import type { EventSink, StreamOptions } from "./transport.js";

const knownTypes = new Set<string>(EVENT_TYPES);

/** Opens one SSE request for the events after `lastSeq`. */
export type ConnectStream = (lastSeq: number, signal: AbortSignal) => Promise<Response>;

type WireError = { code: string; message: string; details?: unknown };
type ReadOutcome = { kind: "dropped"; progressed: boolean } | { kind: "fatal"; error: WireError };

/** Statuses worth retrying: the server is busy, restarting or rate limiting. */
const isRetryable = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * Keeps a session's event stream open: reads it (`TextDecoderStream → EventSourceParserStream
 * → decodeEvent`), and when it drops or ends, reconnects after a backoff with `lastSeq()` as
 * the resume point. An answer retrying cannot fix (404, 403, …) or an undecodable event
 * fails the sink and stops. Returns the function that closes the stream for good.
 */
export function openEventStream(
  connect: ConnectStream,
  options: StreamOptions & { backoff?: BackoffOptions },
): () => void {
  const { sink, lastSeq, backoff } = options;
  const abort = new AbortController();
  const run = async () => {
    for (let attempt = 0, first = true; ; first = false) {
      sink.connection(first ? "connecting" : "reconnecting");
      const outcome = await readOnce(connect, lastSeq(), sink, abort.signal);
      if (abort.signal.aborted) return;
      if (outcome.kind === "fatal") return sink.fail(outcome.error);
      // Only a stream that delivered something resets the backoff, so a server that
      // accepts and at once drops the stream is not hammered.
      if (outcome.progressed) attempt = 0;
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

async function readOnce(
  connect: ConnectStream,
  after: number,
  sink: EventSink,
  signal: AbortSignal,
): Promise<ReadOutcome> {
  let response: Response;
  try {
    response = await connect(after, signal);
  } catch {
    return { kind: "dropped", progressed: false };
  }
  if (!response.ok) {
    const body = await response.json().catch(() => undefined);
    const error = errorOfResponse(response.status, body);
    return isRetryable(response.status)
      ? { kind: "dropped", progressed: false }
      : { kind: "fatal", error: wire(error) };
  }
  if (!response.body) return { kind: "dropped", progressed: false };
  sink.connection("open");
  const reader = response.body
    .pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let progressed = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { kind: "dropped", progressed };
      // An event type from a newer server is skipped, not fatal; a known type that fails to decode is.
      if (value.event && !knownTypes.has(value.event)) continue;
      let event: ReturnType<typeof decodeEvent>;
      try {
        event = decodeEvent(value.data);
      } catch (error) {
        return { kind: "fatal", error: wire(error) };
      }
      progressed = true;
      sink.event(event);
    }
  } catch {
    return { kind: "dropped", progressed };
  } finally {
    reader.cancel().catch(() => {});
  }
}

function wire(error: unknown): WireError {
  if (error instanceof ProtocolError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}
