import type { ProtocolEvent, SessionSnapshot } from "@hitl-kit/protocol";
import type { UIMessageChunk } from "ai";
import type { EventChunker } from "./event-chunker.js";
import type { SessionHttp } from "./session-http.js";

type Terminal = Extract<ProtocolEvent, { type: "turn.waiting" | "turn.completed" | "turn.failed" | "turn.cancelled" }>;

/** Where a stream stops: at the end of the turn running after `seq`, or at `seq` itself. */
export type StreamEnd =
  | { kind: "turn-end"; after: number }
  | { kind: "at"; seq: number; status: SessionSnapshot["status"] };

/** Emits the chunks of the session's events after `from` until `end`, then the turn's last chunk. */
export async function followEvents(
  http: SessionHttp,
  sessionId: string,
  from: number,
  end: StreamEnd,
  chunker: EventChunker,
  emit: (chunk: UIMessageChunk) => void,
  signal: AbortSignal,
  extra: HeadersInit | undefined,
  accept: (event: ProtocolEvent) => boolean = () => true,
): Promise<void> {
  let terminal: Terminal | undefined;
  let seq = from;
  if (!(end.kind === "at" && end.seq <= from)) {
    for await (const event of http.events(sessionId, from, signal, extra)) {
      seq = event.seq;
      if (accept(event)) {
        for (const chunk of chunker.chunks(event)) emit(chunk);
        if (event.type === "turn.started") terminal = undefined;
        if (isTerminal(event)) terminal = event;
      }
      if (end.kind === "turn-end" ? terminal !== undefined && seq > end.after : seq >= end.seq) break;
    }
  }
  emit(lastChunk(terminal, end.kind === "at" ? end.status : "idle"));
}

function isTerminal(event: ProtocolEvent): event is Terminal {
  return (
    event.type === "turn.waiting" ||
    event.type === "turn.completed" ||
    event.type === "turn.failed" ||
    event.type === "turn.cancelled"
  );
}

/** How a reply stops: `finish` when it waits or ends, `error` when the turn failed. */
function lastChunk(terminal: Terminal | undefined, status: SessionSnapshot["status"]): UIMessageChunk {
  switch (terminal?.type) {
    case "turn.failed":
      return failedChunk(terminal.error);
    case "turn.waiting":
      return { type: "finish", finishReason: "tool-calls" };
    case "turn.cancelled":
      return { type: "finish", finishReason: "other" };
    case "turn.completed":
      return { type: "finish", finishReason: "stop" };
    default:
      return { type: "finish", finishReason: status === "waiting" ? "tool-calls" : "stop" };
  }
}

/** The chunk that ends a failed turn's stream: `useChat` shows it as `error`. */
export function failedChunk(error: { code: string; message: string }): UIMessageChunk {
  return { type: "error", errorText: `${error.message} (${error.code})` };
}

/** A chunk stream fed by `produce`; the chat's abort signal, or cancelling the stream, stops it. */
export function chunkStream(
  produce: (emit: (chunk: UIMessageChunk) => void, signal: AbortSignal) => Promise<void>,
  abortSignal: AbortSignal | undefined,
): ReadableStream<UIMessageChunk> {
  const stop = new AbortController();
  const forward = () => stop.abort(abortSignal?.reason);
  abortSignal?.addEventListener("abort", forward, { once: true });
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      produce((chunk) => controller.enqueue(chunk), stop.signal).then(
        () => {
          abortSignal?.removeEventListener("abort", forward);
          stop.abort();
          controller.close();
        },
        (error: unknown) => {
          abortSignal?.removeEventListener("abort", forward);
          stop.abort();
          controller.error(error);
        },
      );
    },
    cancel() {
      stop.abort();
    },
  });
}
