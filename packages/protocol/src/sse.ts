import type { ProtocolEvent } from "./events.js";

/**
 * Writes one stream's events as SSE frames, leaving out of each `data:` what the stream
 * already says: `id:` is the seq, `event:` the type, the stream is for one session, and a
 * streamed delta says neither its time nor, when it continues the message the stream is
 * in, its message. What is left is one line of JSON (JSON escapes newlines, so a frame
 * never splits). Make one per stream: it remembers the message; read frames back with
 * {@link eventFrameDecoder}.
 * @example
 * const encode = eventFrameEncoder();
 * for (const event of events) response.write(encode(event));
 */
export function eventFrameEncoder(): (event: ProtocolEvent) => string {
  let message: string | undefined;
  return (event) => {
    const { seq, type, sessionId: _session, ...payload } = event;
    let data: object = payload;
    if (type === "text.delta" || type === "reasoning.delta") {
      const { at: _at, messageId, ...delta } = payload as { at?: string; messageId: string; delta: string };
      data = messageId === message ? delta : { messageId, ...delta };
    }
    if ("messageId" in event) message = event.messageId;
    return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  };
}

/** Encodes an SSE comment, such as the heartbeat that keeps an idle stream open. */
export function encodeComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}
