import { encodeComment, encodeEvent, type ProtocolEvent } from "@hitl-kit/protocol";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

const encoder = new TextEncoder();

/**
 * A session's SSE stream: every event after `afterSeq` from the store, then live events,
 * each exactly once and in order, with a heartbeat comment while idle.
 */
export function eventStream(
  runtime: AgentRuntime,
  sessionId: string,
  afterSeq: number,
  options: { heartbeatMs: number; signal: AbortSignal },
): ReadableStream<Uint8Array> {
  let stop = () => {};
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let lastSent = afterSeq;
      let replaying = true;
      const live: ProtocolEvent[] = [];
      // The client may leave at any moment, even mid-replay: nothing is written after that.
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const send = (event: ProtocolEvent) => {
        if (event.seq <= lastSent) return;
        lastSent = event.seq;
        write(encodeEvent(event));
      };
      // Listen before reading the store, so an event appended in between is not missed;
      // `lastSent` drops whatever arrives twice.
      const unsubscribe = runtime.subscribe(sessionId, (event) => (replaying ? live.push(event) : send(event)));
      const heartbeat = setInterval(() => write(encodeComment("ping")), options.heartbeatMs);
      heartbeat.unref?.();
      stop = () => {
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
      };
      const leave = () => {
        if (closed) return;
        stop();
        controller.close();
      };
      if (options.signal.aborted) return leave();
      options.signal.addEventListener("abort", leave);
      write("retry: 1000\n\n");
      try {
        for (;;) {
          const page = await runtime.readEvents(sessionId, lastSent, 500);
          for (const event of page) send(event);
          if (page.length < 500) break;
        }
        for (const event of live) send(event);
      } catch (error) {
        if (closed) return;
        stop();
        controller.error(error);
        return;
      }
      replaying = false;
    },
    cancel() {
      stop();
    },
  });
}
