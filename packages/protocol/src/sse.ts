import type { ProtocolEvent } from "./events.js";

/**
 * Encodes one event as an SSE frame: `id:` is the seq, `event:` the type and `data:` the
 * whole event as one line of JSON (JSON escapes newlines, so a frame never splits).
 */
export function encodeEvent(event: ProtocolEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Encodes an SSE comment, such as the heartbeat that keeps an idle stream open. */
export function encodeComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}
