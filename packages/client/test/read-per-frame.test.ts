import { type EventInput, eventFrameEncoder, type ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openEventStream } from "../src/open-event-stream.js";
import { manualFrames } from "./manual-frames.js";

const encode = eventFrameEncoder();
/** The frame of the `seq`th event: the message's start, then one-word deltas. */
const frameOf = (seq: number) => {
  const input: EventInput =
    seq === 1
      ? { type: "message.started", messageId: "m", role: "assistant" }
      : { type: "text.delta", messageId: "m", delta: `w${seq} ` };
  return encode({ ...input, seq, sessionId: "s", at: "now" } as ProtocolEvent);
};
const bytes = (text: string) => new TextEncoder().encode(text);

/** A body like a fetch body's: each read hands over everything that arrived since the last one. */
function networkBody() {
  let buffered = "";
  let wake: (() => void) | undefined;
  let reads = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reads++;
        while (!buffered) await new Promise<void>((resolve) => (wake = resolve));
        controller.enqueue(bytes(buffered));
        buffered = "";
      },
    },
    { highWaterMark: 0 },
  );
  const arrive = (text: string) => {
    buffered += text;
    wake?.();
    wake = undefined;
  };
  return { body, arrive, reads: () => reads };
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("openEventStream's reads", () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  const open = (body: ReadableStream<Uint8Array>, frames: ReturnType<typeof manualFrames>) => {
    const batches: number[][] = [];
    close = openEventStream(async () => new Response(body), {
      sessionId: "s",
      lastSeq: () => batches.flat().at(-1) ?? 0,
      frames: frames.schedule,
      sink: {
        event: (event) => batches.push([event.seq]),
        events: (events) => batches.push(events.map((event) => event.seq)),
        connection: () => {},
        fail: (error) => {
          throw new Error(error.message);
        },
      },
    });
    return batches;
  };

  /** Opens a stream at a token rate whose first event waits for its frame. */
  const openWaitingForFrame = async () => {
    const frames = manualFrames();
    const network = networkBody();
    const batches = open(network.body, frames);
    await vi.waitFor(() => expect(network.reads()).toBe(1));
    network.arrive(frameOf(1));
    await vi.waitFor(() => expect(frames.waiting()).toBe(1));
    return { frames, network, batches };
  };

  it("at a token rate, reads again only after the frame: what arrives meanwhile is one read, shown at the next frame", async () => {
    const { frames, network, batches } = await openWaitingForFrame();
    // Two tokens arrive, in two tasks, before the frame: the reader waits for the frame.
    network.arrive(frameOf(2));
    await nextTask();
    network.arrive(frameOf(3));
    await nextTask();
    expect(network.reads()).toBe(1);
    frames.frame();
    expect(batches).toEqual([[1]]);
    // After the frame, one read takes both; the next waits for the network.
    await vi.waitFor(() => expect(network.reads()).toBe(3));
    expect(frames.waiting()).toBe(1);
    frames.frame();
    expect(batches).toEqual([[1], [2, 3]]);
    network.arrive(frameOf(4));
    await vi.waitFor(() => expect(frames.waiting()).toBe(1));
    await nextTask();
    expect(network.reads()).toBe(3);
    frames.frame();
    expect(batches).toEqual([[1], [2, 3], [4]]);
    await vi.waitFor(() => expect(network.reads()).toBe(4));
  });

  it("at a token rate, a read after the frame starts a new slice: no task is queued to cut it", async () => {
    const made = vi.fn();
    const Native = globalThis.MessageChannel;
    vi.stubGlobal(
      "MessageChannel",
      class extends Native {
        constructor() {
          super();
          made();
        }
      },
    );
    try {
      const { frames, network, batches } = await openWaitingForFrame();
      // A token arrives, and the frame comes later than a slice (SLICE_MS) after the read.
      network.arrive(frameOf(2));
      await new Promise((resolve) => setTimeout(resolve, 20));
      frames.frame();
      await vi.waitFor(() => expect(frames.waiting()).toBe(1));
      frames.frame();
      expect(batches).toEqual([[1], [2]]);
      expect(made).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("reads chunks already queued one after another, without waiting a frame for each", async () => {
    const frames = manualFrames();
    const count = 200;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let seq = 1; seq <= count; seq++) controller.enqueue(bytes(frameOf(seq)));
        controller.close();
      },
    });
    const batches = open(body, frames);
    // The stream ends after the backlog: its end hands on what was read at once.
    await vi.waitFor(() => expect(batches.flat()).toHaveLength(count));
    expect(batches).toEqual([Array.from({ length: count }, (_, index) => index + 1)]);
  });
});
