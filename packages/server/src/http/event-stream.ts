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
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let lastSent = afterSeq;
      let replaying = true;
      const live: ProtocolEvent[] = [];
      const send = (event: ProtocolEvent) => {
        if (event.seq <= lastSent) return;
        lastSent = event.seq;
        controller.enqueue(encoder.encode(encodeEvent(event)));
      };
      // Listen before reading the store, so an event appended in between is not missed;
      // `lastSent` drops whatever arrives twice.
      const unsubscribe = runtime.subscribe(sessionId, (event) => (replaying ? live.push(event) : send(event)));
      const heartbeat = setInterval(
        () => controller.enqueue(encoder.encode(encodeComment("ping"))),
        options.heartbeatMs,
      );
      heartbeat.unref?.();
      stop = () => {
        unsubscribe();
        clearInterval(heartbeat);
      };
      options.signal.addEventListener("abort", () => {
        stop();
        try {
          controller.close();
        } catch {}
      });
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      try {
        for (;;) {
          const page = await runtime.readEvents(sessionId, lastSent, 500);
          for (const event of page) send(event);
          if (page.length < 500) break;
        }
        for (const event of live) send(event);
      } catch (error) {
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
