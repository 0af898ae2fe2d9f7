import { ProtocolError } from "./errors.js";
import { ProtocolEvent } from "./events.js";

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

/**
 * Decodes the `data:` of one SSE frame into a validated event.
 * @throws {ProtocolError} `bad_request` when the data is not JSON or not an event of protocol v1
 */
export function decodeEvent(data: string): ProtocolEvent {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ProtocolError("bad_request", `An event's data is not JSON: ${data.slice(0, 80)}`);
  }
  const result = ProtocolEvent.safeParse(json);
  if (!result.success) {
    throw new ProtocolError("bad_request", `Not an event of protocol v1: ${result.error.message}`, result.error.issues);
  }
  return result.data;
}
