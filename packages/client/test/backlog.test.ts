import { type EventInput, eventFrameEncoder, type ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openEventStream } from "../src/open-event-stream.js";

const encode = eventFrameEncoder();
const frames = [
  { type: "message.started", messageId: "m", role: "assistant" } as EventInput,
  ...Array.from(
    { length: 20_000 },
    (_, index): EventInput => ({ type: "text.delta", messageId: "m", delta: `w${index} ` }),
  ),
].map((input, index) => encode({ ...input, seq: index + 1, sessionId: "s", at: "now" } as ProtocolEvent));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("reading a backlog", () => {
  it("parses 20,000 buffered events over many short tasks, in order, none lost", async () => {
    // A clock that moves 1 ms per reading, so the number of slices does not depend on how
    // fast this machine parses (on a fast one, the whole backlog took three real slices).
    let clock = 0;
    vi.spyOn(performance, "now").mockImplementation(() => ++clock);
    const seqs: number[] = [];
    // Another task source, queued the way the reader yields (a MessageChannel message).
    let ticks = 0;
    let ticking = true;
    const ticker = new MessageChannel();
    ticker.port1.onmessage = () => {
      ticks++;
      if (ticking) ticker.port2.postMessage(undefined);
    };
    ticker.port2.postMessage(undefined);
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => (finished = resolve));
    const backlog = new TextEncoder().encode(frames.join(""));
    const close = openEventStream(
      async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(backlog); // the whole backlog in one chunk
            },
          }),
        ),
      {
        sessionId: "s",
        lastSeq: () => seqs.at(-1) ?? 0,
        sink: {
          event: (event) => seqs.push(event.seq),
          events: (events) => {
            for (const event of events) seqs.push(event.seq);
            if (seqs.length === frames.length) finished();
          },
          connection: () => {},
          fail: (error) => {
            throw new Error(error.message);
          },
        },
      },
    );
    const started = ticks;
    await done;
    ticking = false;
    ticker.port1.close();
    close();
    expect(seqs).toEqual(Array.from({ length: frames.length }, (_, index) => index + 1));
    // Other tasks (here a timer) ran while the backlog was parsed: it was not one long task.
    expect(ticks - started).toBeGreaterThan(10);
  });
});
