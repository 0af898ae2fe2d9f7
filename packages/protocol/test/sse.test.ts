import { EventSourceParserStream } from "eventsource-parser/stream";
import { describe, expect, it } from "vitest";
import {
  decodeEvent,
  EVENT_TYPES,
  encodeComment,
  encodeEvent,
  ProtocolError,
  type ProtocolEvent,
} from "../src/index.js";
import { everyEventType } from "./fixtures.js";

/** Sends encoded frames through eventsource-parser in awkward chunks, as a network would. */
async function roundTrip(events: ProtocolEvent[], chunkSize = 7) {
  const bytes = new TextEncoder().encode(events.map(encodeEvent).join(encodeComment("heartbeat")));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });
  const frames = [];
  const reader = stream
    .pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return frames;
    frames.push({ id: value.id, event: value.event, decoded: decodeEvent(value.data) });
  }
}

describe("SSE codec", () => {
  it("round-trips one event of every type through eventsource-parser", async () => {
    expect(new Set(everyEventType.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
    const frames = await roundTrip(everyEventType);
    expect(frames.map((frame) => frame.decoded)).toEqual(everyEventType);
    expect(frames.map((frame) => frame.id)).toEqual(everyEventType.map((event) => String(event.seq)));
    expect(frames.map((frame) => frame.event)).toEqual(everyEventType.map((event) => event.type));
  });

  it("keeps newlines, carriage returns and unicode in payloads intact", async () => {
    const delta = "line one\nline two\r\nline three\r🎨 poster — «ünïcödé» \u2028 \u2029 \u0000 end";
    const event: ProtocolEvent = { seq: 5, sessionId: "s", at: "now", type: "text.delta", messageId: "m", delta };
    const [frame] = await roundTrip([event], 3);
    expect(frame?.decoded).toEqual(event);
  });

  it("carries a large text in one frame", async () => {
    const delta = "word ".repeat(200_000);
    const event: ProtocolEvent = { seq: 9, sessionId: "s", at: "now", type: "text.delta", messageId: "m", delta };
    const frames = await roundTrip([event], 65_536);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.decoded).toEqual(event);
  });

  it("keeps a comment on one line so it cannot inject a frame", () => {
    expect(encodeComment("a\ndata: {}\n")).toBe(": a data: {} \n\n");
  });

  it("rejects data that is not JSON, or not an event, with a ProtocolError", () => {
    expect(() => decodeEvent("{nope")).toThrow(ProtocolError);
    expect(() => decodeEvent(JSON.stringify({ seq: 1, type: "text.delta" }))).toThrow(/Not an event of protocol v1/);
    expect(() => decodeEvent(JSON.stringify({ seq: 1, sessionId: "s", at: "x", type: "made.up" }))).toThrow(
      ProtocolError,
    );
  });
});
