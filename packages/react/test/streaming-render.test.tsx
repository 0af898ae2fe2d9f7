import { createAgentClient } from "@hitl-kit/client";
import { type EventInput, emptySnapshot, eventFrameEncoder, type ProtocolEvent } from "@hitl-kit/protocol";
import { act, cleanup, render } from "@testing-library/react";
import { Profiler } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentProvider, MessageText, splitTextBlocks, useAgent } from "../src/index.js";

const sessionId = "ses_stream";
const encode = eventFrameEncoder();
let seq = 1;
const frame = (input: EventInput) => encode({ ...input, seq: ++seq, sessionId, at: "now" } as ProtocolEvent);

/** A display's frames, run when the test says so. */
let frameCallbacks = new Map<number, FrameRequestCallback>();
let nextHandle = 1;
function runFrame() {
  const due = [...frameCallbacks.values()];
  frameCallbacks = new Map();
  for (const callback of due) callback(performance.now());
}

beforeEach(() => {
  seq = 1;
  frameCallbacks = new Map();
  vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => {
    frameCallbacks.set(nextHandle, callback);
    return nextHandle++;
  });
  vi.stubGlobal("cancelAnimationFrame", (handle: number) => frameCallbacks.delete(handle));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A client on the SSE transport whose stream the test writes bytes into. */
function streamingClient() {
  let write: (text: string) => void = () => {};
  let queued: () => number = () => 0;
  const opened = new Promise<void>((resolve) => {
    write = () => resolve();
  });
  const bytes = new TextEncoder();
  const fetch = async (input: RequestInfo | URL) => {
    if (!String(input).includes("/events")) return Response.json(emptySnapshot(sessionId));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const open = write;
        write = (text) => controller.enqueue(bytes.encode(text));
        queued = () => 1 - (controller.desiredSize ?? 1);
        open("");
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
  const client = createAgentClient({ url: "http://test.local/api", sessionId, fetch });
  /** Resolves once the client has read every chunk written (the parser yields between slices of a backlog). */
  const drained = async () => {
    while (queued() > 0) await settle();
    await settle();
  };
  return { client, opened, write: (text: string) => write(text), drained };
}

function Transcript() {
  const messages = useAgent((agent) => agent.messages);
  return messages.map((message) =>
    message.parts.map((part, index) =>
      part.type === "text" ? (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end
        <MessageText key={index} className="text" text={part.text} streaming={message.status === "streaming"} />
      ) : null,
    ),
  );
}

/** Lets the stream's reads and the client's microtasks run, without running a frame. */
const settle = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));

describe("streaming render", () => {
  it("commits at most once per frame under a burst, and shows the whole text", async () => {
    const { client, opened, write, drained } = streamingClient();
    const commits: number[] = [];
    let frameIndex = 0;
    const view = render(
      <Profiler id="chat" onRender={() => commits.push(frameIndex)}>
        <AgentProvider client={client}>
          <Transcript />
        </AgentProvider>
      </Profiler>,
    );
    await act(() => opened);
    const words = Array.from({ length: 3000 }, (_, index) => `w${index} `);
    write(frame({ type: "message.started", messageId: "m", role: "assistant" }));
    // Three bursts, written in many chunks while no frame runs. The reader may take a burst's
    // first chunk alone (it was waiting for the stream) and the rest after the frame that
    // shows it: each burst is whole within two frames, one commit in each.
    let shown = 0;
    for (const burst of [words.slice(0, 1000), words.slice(1000, 2000), words.slice(2000)]) {
      for (const word of burst) write(frame({ type: "text.delta", messageId: "m", delta: word }));
      shown += burst.length;
      const expected = words.slice(0, shown).join("");
      await settle();
      for (let frames = 1; view.container.querySelector(".text")?.textContent !== expected; frames++) {
        expect(frames).toBeLessThanOrEqual(2);
        commits.length = 0;
        frameIndex++;
        await act(async () => runFrame());
        await drained();
        expect(commits).toEqual([frameIndex]);
      }
    }
    expect(view.container.querySelector(".text")?.textContent).toBe(words.join(""));
  });

  it("commits at most once per frame at a token rate, with nothing lost", async () => {
    const { client, opened, write } = streamingClient();
    const commitsPerFrame = new Map<number, number>();
    let frameIndex = 0;
    const view = render(
      <Profiler id="chat" onRender={() => commitsPerFrame.set(frameIndex, (commitsPerFrame.get(frameIndex) ?? 0) + 1)}>
        <AgentProvider client={client}>
          <Transcript />
        </AgentProvider>
      </Profiler>,
    );
    await act(() => opened);
    write(frame({ type: "message.started", messageId: "m", role: "assistant" }));
    await settle();
    await act(async () => runFrame());
    commitsPerFrame.clear(); // the mount and the hydration are not the stream's
    let text = "";
    for (let index = 0; index < 60; index++) {
      // Two deltas between frames, each in its own task, as at ~100 deltas/s on 60 Hz.
      for (const word of [`a${index} `, `b${index} `]) {
        write(frame({ type: "text.delta", messageId: "m", delta: word }));
        text += word;
        await settle();
      }
      frameIndex++;
      await act(async () => runFrame());
    }
    // A delta that arrives while the reader waits for a frame is read after it and shown at
    // the next: the last one needs one more frame.
    await settle();
    frameIndex++;
    await act(async () => runFrame());
    expect([...commitsPerFrame.values()]).toEqual(Array.from({ length: 61 }, () => 1));
    expect(view.container.querySelector(".text")?.textContent).toBe(text);
  });
});

describe("MessageText", () => {
  it("is busy while its message streams, so a live region around it waits, and not once it is complete", async () => {
    const { client, opened, write, drained } = streamingClient();
    const view = render(
      <AgentProvider client={client}>
        <Transcript />
      </AgentProvider>,
    );
    await act(() => opened);
    const text = () => view.container.querySelector(".text");
    const show = async (event: EventInput) => {
      write(frame(event));
      await settle();
      await act(async () => runFrame());
      await drained();
    };
    await show({ type: "message.started", messageId: "m", role: "assistant" });
    let written = "";
    for (const delta of ["The reply ", "grows", ".\n\nAnd goes on"]) {
      await show({ type: "text.delta", messageId: "m", delta });
      written += delta;
      expect(text()?.textContent).toBe(written);
      expect(text()?.getAttribute("aria-busy")).toBe("true");
    }
    await show({ type: "message.completed", messageId: "m" });
    expect(text()?.textContent).toBe(written);
    expect(text()?.hasAttribute("aria-busy")).toBe(false);
  });

  it("is not busy when nothing says it streams (a stored or a finished text)", () => {
    const view = render(<MessageText className="text" text="Done." />);
    expect(view.container.querySelector(".text")?.hasAttribute("aria-busy")).toBe(false);
  });

  it("keeps the DOM nodes of finished blocks while the tail grows", () => {
    let text = "First paragraph.\n\nSecond";
    const view = render(<MessageText className="text" text={text} />);
    const firstBlock = view.container.querySelector('[data-block="finished"]');
    const firstText = firstBlock?.firstChild;
    expect(firstBlock?.textContent).toBe("First paragraph.\n\n");
    for (const delta of [" one", " two.\n", "\nThird", " and more.\n\n", "Fourth"]) {
      text += delta;
      view.rerender(<MessageText className="text" text={text} />);
    }
    const finished = [...view.container.querySelectorAll('[data-block="finished"]')];
    expect(finished.map((block) => block.textContent)).toEqual([
      "First paragraph.\n\n",
      "Second one two.\n\n",
      "Third and more.\n\n",
    ]);
    expect(finished[0]).toBe(firstBlock);
    expect(finished[0]?.firstChild).toBe(firstText);
    const secondBlock = finished[1];
    text += " paragraph.";
    view.rerender(<MessageText className="text" text={text} />);
    expect(view.container.querySelectorAll('[data-block="finished"]')[1]).toBe(secondBlock);
    expect(view.container.querySelector('[data-block="tail"]')?.textContent).toBe("Fourth paragraph.");
    expect(view.container.querySelector(".text")?.textContent).toBe(text);
  });
});

describe("splitTextBlocks", () => {
  it("cuts at blank lines, keeps every character and reuses the finished blocks", () => {
    const one = splitTextBlocks("a\n\nb\n");
    expect(one.finished).toEqual(["a\n\n"]);
    const two = splitTextBlocks("a\n\nb\n\n\nc", one);
    expect(two.finished).toEqual(["a\n\n", "b\n\n\n"]);
    expect(two.finished.join("") + two.text.slice(two.tailStart)).toBe("a\n\nb\n\n\nc");
    const three = splitTextBlocks("a\n\nb\n\n\ncd", two);
    expect(three.finished).toBe(two.finished);
    expect(splitTextBlocks("x\n\n").finished).toEqual([]);
  });

  it("starts over when the text is not an extension of the one before", () => {
    const before = splitTextBlocks("a\n\nb");
    const after = splitTextBlocks("z\n\ny\n\nx", before);
    expect(after.finished).toEqual(["z\n\n", "y\n\n"]);
    expect(splitTextBlocks("", after).finished).toEqual([]);
  });
});
