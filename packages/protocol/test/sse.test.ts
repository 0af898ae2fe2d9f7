import { EventSourceParserStream } from "eventsource-parser/stream";
import { describe, expect, it } from "vitest";
import {
  decodeEvent,
  EVENT_TYPES,
  eventFrameDecoder,
  eventFrameEncoder,
  ProtocolError,
  type ProtocolEvent,
} from "../src/index.js";
import { encodeComment } from "../src/internal.js";
import { everyEventType } from "./fixtures.js";

/** Frames as eventsource-parser hands them over, from bytes in awkward chunks, as a network would. */
async function parse(text: string, chunkSize = 7) {
  const bytes = new TextEncoder().encode(text);
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
    frames.push(value);
  }
}

/** Encodes events as one stream does, parses them, and decodes them as one client does. */
async function roundTrip(events: ProtocolEvent[], chunkSize = 7) {
  const encode = eventFrameEncoder();
  const frames = await parse(events.map(encode).join(encodeComment("heartbeat")), chunkSize);
  const decode = eventFrameDecoder(events[0]?.sessionId ?? "s");
  return frames.map((frame) => ({ id: frame.id, event: frame.event, decoded: decode(frame), data: frame.data }));
}

/** A delta as a client receives it: without the time the store keeps. */
const asReceived = (event: ProtocolEvent): ProtocolEvent => {
  if (event.type !== "text.delta" && event.type !== "reasoning.delta") return event;
  const { at: _at, ...rest } = event;
  return rest;
};

describe("SSE codec", () => {
  it("round-trips one event of every type through eventsource-parser", async () => {
    expect(new Set(everyEventType.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
    const frames = await roundTrip(everyEventType);
    expect(frames.map((frame) => frame.decoded)).toEqual(everyEventType.map(asReceived));
    expect(frames.map((frame) => frame.id)).toEqual(everyEventType.map((event) => String(event.seq)));
    expect(frames.map((frame) => frame.event)).toEqual(everyEventType.map((event) => event.type));
  });

  it("leaves out of a frame's data what the stream already says", async () => {
    const base = { sessionId: "ses_1", at: "2026-11-23T10:00:00.000Z" };
    const events: ProtocolEvent[] = [
      { ...base, seq: 7, type: "message.started", messageId: "msg_a", role: "assistant" },
      { ...base, seq: 8, type: "text.delta", messageId: "msg_a", delta: "Hello" },
      { ...base, seq: 9, type: "reasoning.delta", messageId: "msg_a", delta: "hm" },
      { ...base, seq: 10, type: "text.delta", messageId: "msg_b", delta: "other" },
      { ...base, seq: 11, type: "text.delta", messageId: "msg_b", delta: " one" },
    ];
    const frames = await roundTrip(events);
    expect(frames.map((frame) => JSON.parse(frame.data))).toEqual([
      { at: base.at, messageId: "msg_a", role: "assistant" },
      { delta: "Hello" },
      { delta: "hm" },
      { messageId: "msg_b", delta: "other" },
      { delta: " one" },
    ]);
    expect(frames.map((frame) => frame.decoded)).toEqual(events.map(asReceived));
    expect(eventFrameEncoder()(events[1]!)).toBe(
      'id: 8\nevent: text.delta\ndata: {"messageId":"msg_a","delta":"Hello"}\n\n',
    );
  });

  it("reads a whole event (protocol v1) in a frame as it is", () => {
    const event: ProtocolEvent = { seq: 3, sessionId: "s", at: "now", type: "turn.completed", turnId: "t" };
    expect(eventFrameDecoder("s")({ id: "3", event: "turn.completed", data: JSON.stringify(event) })).toEqual(event);
  });

  it("keeps newlines, carriage returns and unicode in payloads intact", async () => {
    const delta = "line one\nline two\r\nline three\r🎨 poster — «ünïcödé» \u2028 \u2029 \u0000 end";
    const event: ProtocolEvent = { seq: 5, sessionId: "s", at: "now", type: "text.delta", messageId: "m", delta };
    const [frame] = await roundTrip([event], 3);
    expect(frame?.decoded).toEqual(asReceived(event));
  });

  it("carries a large text in one frame", async () => {
    const delta = "word ".repeat(200_000);
    const event: ProtocolEvent = { seq: 9, sessionId: "s", at: "now", type: "text.delta", messageId: "m", delta };
    const frames = await roundTrip([event], 65_536);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.decoded).toEqual(asReceived(event));
  });

  it("keeps a comment on one line so it cannot inject a frame", () => {
    expect(encodeComment("a\ndata: {}\n")).toBe(": a data: {} \n\n");
  });

  it("rejects data that is not JSON, or not an event, with a ProtocolError", () => {
    expect(() => decodeEvent("{nope")).toThrow(ProtocolError);
    expect(() => decodeEvent(JSON.stringify({ seq: 1, type: "text.delta" }))).toThrow(
      /Not an event of the hitl-kit protocol/,
    );
    expect(() => decodeEvent(JSON.stringify({ seq: 1, sessionId: "s", at: "x", type: "made.up" }))).toThrow(
      ProtocolError,
    );
    const decode = eventFrameDecoder("s");
    expect(() => decode({ event: "text.delta", data: '{"delta":"x"}' })).toThrow(/numeric `id:` seq/);
    expect(() => decode({ id: "1", event: "text.delta", data: '{"delta":"x"}' })).toThrow(/before any message/);
    expect(() => decode({ id: "0x1", event: "turn.completed", data: '{"turnId":"t"}' })).toThrow(ProtocolError);
    expect(() => decode({ id: "1", event: "text.delta", data: "[]" })).toThrow(/not a JSON object/);
  });

  it("checks a compact delta frame by its event's schema, as a whole event is checked", () => {
    const payloads = [
      { delta: "x" },
      { delta: 1 },
      { delta: null },
      {},
      { messageId: "m2", delta: "y" },
      { messageId: 2, delta: "y" },
      { delta: "x", at: "2026-11-23T00:00:00.000Z" },
      { delta: "x", at: 5 },
      { delta: "x", extra: true },
    ];
    for (const type of ["text.delta", "reasoning.delta"]) {
      for (const payload of payloads) {
        const decode = eventFrameDecoder("s");
        decode({ id: "1", event: "message.started", data: '{"messageId":"m","role":"assistant","at":"t"}' });
        const whole = JSON.stringify({ messageId: "m", ...payload, seq: 2, type, sessionId: "s" });
        const expected = (() => {
          try {
            return decodeEvent(whole);
          } catch (error) {
            return error;
          }
        })();
        const frame = { id: "2", event: type, data: JSON.stringify(payload) };
        if (expected instanceof ProtocolError) expect(() => decode(frame), whole).toThrow(ProtocolError);
        else expect(decode(frame), whole).toEqual(expected);
      }
    }
  });

  it("takes a delta's message from the last delta that named one", () => {
    const decode = eventFrameDecoder("s");
    decode({ id: "1", event: "text.delta", data: '{"messageId":"m1","delta":"a"}' });
    decode({ id: "2", event: "text.delta", data: '{"messageId":"m2","delta":"b"}' });
    expect(decode({ id: "3", event: "text.delta", data: '{"delta":"c"}' })).toMatchObject({ messageId: "m2" });
  });
});
