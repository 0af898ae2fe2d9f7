/**
 * The bytes both clients read, served as a web-standard `(Request) => Response` handler: in
 * process as happy-dom's `fetch`, and on a 127.0.0.1 port for Chromium. hitl-kit's side is
 * written by `@hitl-kit/protocol`'s `eventFrameEncoder`; the AI SDK's in its UI message stream
 * format, as `toUIMessageStreamResponse()` writes it. Same text, same deltas, same pacing.
 */
import {
  type EventInput,
  eventFrameEncoder,
  type Message,
  type ProtocolEvent,
  type SessionSnapshot,
} from "@hitl-kit/protocol";
import { deltaAt, historyRole, historyText, REPLY_ID, type StreamShape, shapeOf } from "./stream-case.js";

/** A stream's frames: those written at once, the deltas (paced), and those after the last delta. */
export interface WireFrames {
  head: string[];
  deltas: string[];
  tail: string[];
}

const SESSION = "ses_bench";

/** hitl-kit's frames of a reply, seq 2 on (the snapshot is at seq 1). */
export function hitlFrames(shape: StreamShape): WireFrames {
  const encode = eventFrameEncoder();
  let seq = 1;
  const frame = (input: EventInput) =>
    encode({
      ...input,
      seq: ++seq,
      sessionId: SESSION,
      at: new Date(1_800_000_000_000).toISOString(),
    } as ProtocolEvent);
  const head = [
    frame({ type: "turn.started", turnId: "turn_bench", cause: "message" }),
    frame({ type: "message.started", messageId: "msg_user", role: "user" }),
    frame({ type: "text.delta", messageId: "msg_user", delta: "go" }),
    frame({ type: "message.completed", messageId: "msg_user" }),
    frame({ type: "message.started", messageId: REPLY_ID, role: "assistant" }),
  ];
  const deltas = Array.from({ length: shape.deltas }, (_, index) =>
    frame({ type: "text.delta", messageId: REPLY_ID, delta: deltaAt(index) }),
  );
  const tail = [
    frame({ type: "message.completed", messageId: REPLY_ID }),
    frame({ type: "turn.completed", turnId: "turn_bench" }),
  ];
  return { head, deltas, tail };
}

/** The AI SDK's UI message stream of the same reply (its text part id is `0`, as Anthropic's first block). */
export function aiSdkFrames(shape: StreamShape): WireFrames {
  const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
  return {
    head: [
      frame({ type: "start", messageId: REPLY_ID }),
      frame({ type: "start-step" }),
      frame({ type: "text-start", id: "0" }),
    ],
    deltas: Array.from({ length: shape.deltas }, (_, index) =>
      frame({ type: "text-delta", id: "0", delta: deltaAt(index) }),
    ),
    tail: [
      frame({ type: "text-end", id: "0" }),
      frame({ type: "finish-step" }),
      frame({ type: "finish" }),
      "data: [DONE]\n\n",
    ],
  };
}

/** The session's history as hitl-kit's snapshot holds it. */
function historyMessages(count: number): Message[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `msg_h${index}`,
    role: historyRole(index),
    status: "complete",
    parts: [{ type: "text", text: historyText(index) }],
  }));
}

const utf8 = new TextEncoder();
/** A backlog is written in chunks of about this many bytes, as a socket would carry it. */
const CHUNK_BYTES = 16_384;

/**
 * A body that writes `head` at once, then the deltas (all at once, or `rate` per second on a
 * clock, each tick writing every delta due), then `tail`; it stays open after when `keepOpen`.
 */
function pacedBody(
  frames: WireFrames,
  rate: number,
  keepOpen: boolean,
  signal: AbortSignal,
  after: Promise<void> = Promise.resolve(),
): ReadableStream {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      await after;
      if (signal.aborted) return controller.close();
      const write = (list: readonly string[]) => {
        let chunk = "";
        for (const frame of list) {
          chunk += frame;
          if (chunk.length >= CHUNK_BYTES) {
            controller.enqueue(utf8.encode(chunk));
            chunk = "";
          }
        }
        if (chunk) controller.enqueue(utf8.encode(chunk));
      };
      const end = () => {
        write(frames.tail);
        if (!keepOpen) controller.close();
      };
      const stop = () => {
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      signal.addEventListener("abort", stop, { once: true });
      write(frames.head);
      if (rate === 0) {
        write(frames.deltas);
        return end();
      }
      const started = performance.now();
      let sent = 0;
      const tick = () => {
        const due = Math.min(frames.deltas.length, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
        if (due > sent) write(frames.deltas.slice(sent, due));
        sent = due;
        if (sent === frames.deltas.length) return end();
        timer = setTimeout(tick, Math.max(0, (sent * 1000) / rate - (performance.now() - started)));
      };
      tick();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

const sse = { "content-type": "text/event-stream", "cache-control": "no-store" };

/**
 * The wire server: `GET /api/agent/sessions/:run` (the snapshot with the run's history),
 * `GET …/events` (opens the stream; the reply starts when the message is posted),
 * `POST …/messages`, and the AI SDK's `POST /api/chat/:run`. Anything else is a 404.
 */
export function wireHandler(): (request: Request) => Promise<Response> {
  const framesCache = new Map<string, { hitl: WireFrames; aiSdk: WireFrames }>();
  const framesOf = (shape: StreamShape) => {
    const key = `${shape.deltas}`;
    let frames = framesCache.get(key);
    if (!frames) {
      frames = { hitl: hitlFrames(shape), aiSdk: aiSdkFrames(shape) };
      framesCache.set(key, frames);
    }
    return frames;
  };
  const waiting = new Map<string, () => void>();
  const posted = new Map<string, Promise<void>>();
  const postedPromise = (runId: string) => {
    let promise = posted.get(runId);
    if (!promise) {
      promise = new Promise<void>((resolve) => waiting.set(runId, resolve));
      posted.set(runId, promise);
    }
    return promise;
  };

  return async (request) => {
    const { pathname } = new URL(request.url);
    const agent = /^\/api\/agent\/sessions\/([^/]+)(\/events|\/messages)?$/.exec(pathname);
    const chat = /^\/api\/chat\/([^/]+)$/.exec(pathname);
    if (agent) {
      const runId = decodeURIComponent(agent[1]!);
      const shape = shapeOf(runId);
      if (agent[2] === "/messages" && request.method === "POST") {
        postedPromise(runId);
        waiting.get(runId)?.();
        return Response.json({ turnId: "turn_bench" }, { status: 202 });
      }
      if (agent[2] === "/events") {
        const lastSeq = Number(request.headers.get("last-event-id") ?? 0);
        if (lastSeq > 1)
          throw new Error(`Run ${runId} reconnected (after seq ${lastSeq}): a run must not drop its stream.`);
        const body = pacedBody(framesOf(shape).hitl, shape.rate, true, request.signal, postedPromise(runId));
        return new Response(body, { headers: sse });
      }
      const snapshot: SessionSnapshot = {
        sessionId: runId,
        status: "idle",
        messages: historyMessages(shape.history),
        pending: [],
        resolved: [],
        lastSeq: 1,
      };
      return Response.json(snapshot);
    }
    if (chat && request.method === "POST") {
      const shape = shapeOf(decodeURIComponent(chat[1]!));
      return new Response(pacedBody(framesOf(shape).aiSdk, shape.rate, false, request.signal), {
        headers: { ...sse, "x-vercel-ai-ui-message-stream": "v1" },
      });
    }
    return new Response("not found", { status: 404 });
  };
}

/** Bytes per text delta on the wire, for both sides, over a reply of `deltas` deltas. */
export function wireBytes(deltas: number): { hitl: number; aiSdk: number; hitlTotal: number; aiSdkTotal: number } {
  const shape = { deltas, rate: 0, history: 0 };
  const size = (list: readonly string[]) => list.reduce((sum, frame) => sum + utf8.encode(frame).length, 0);
  const [hitl, aiSdk] = [hitlFrames(shape), aiSdkFrames(shape)];
  const total = (frames: WireFrames) => size(frames.head) + size(frames.deltas) + size(frames.tail);
  return {
    hitl: size(hitl.deltas) / deltas,
    aiSdk: size(aiSdk.deltas) / deltas,
    hitlTotal: total(hitl),
    aiSdkTotal: total(aiSdk),
  };
}
