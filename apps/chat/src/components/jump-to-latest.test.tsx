import { replayTransport } from "@hitl-kit/client";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startChat } from "../../test/chat-harness.js";
import { renderReplayedTranscript } from "../../test/replayed-transcript.js";

// happy-dom lays nothing out and never reports a resize: the transcript's scroller is given
// a size by hand, and the test says when its content grew, as a browser's ResizeObserver would.
const scroller = { height: 3000, view: 500, top: 0 };
const resized: (() => void)[] = [];
const isScroller = (element: Element) => element.classList.contains("chat-transcript");
/** The prototype that defines a layout property (happy-dom puts some on Element, some on HTMLElement). */
function definer(name: "scrollHeight" | "clientHeight" | "scrollTop"): HTMLElement {
  let prototype: object | null = HTMLElement.prototype;
  while (prototype && !Object.hasOwn(prototype, name)) prototype = Object.getPrototypeOf(prototype);
  if (!prototype) throw new Error(`no ${name} in this DOM`);
  return prototype as HTMLElement;
}
const spies = [
  vi.spyOn(definer("scrollHeight"), "scrollHeight", "get").mockImplementation(function (this: Element) {
    return isScroller(this) ? scroller.height : 0;
  }),
  vi.spyOn(definer("clientHeight"), "clientHeight", "get").mockImplementation(function (this: Element) {
    return isScroller(this) ? scroller.view : 0;
  }),
  vi.spyOn(definer("scrollTop"), "scrollTop", "get").mockImplementation(function (this: Element) {
    return isScroller(this) ? scroller.top : 0;
  }),
  vi.spyOn(definer("scrollTop"), "scrollTop", "set").mockImplementation(function (this: Element, top: number) {
    if (isScroller(this)) scroller.top = Math.max(0, Math.min(top, scroller.height - scroller.view));
  }),
];
const scrollTo = vi.fn(function (this: Element, options: ScrollToOptions) {
  if (isScroller(this)) scroller.top = options.top ?? scroller.top;
});

let events: ProtocolEvent[] = [];
beforeAll(async () => {
  const chat = startChat({ identify: () => "reader" });
  const id = await chat.session();
  await chat.send(id, "hello");
  await chat.send(id, "make a poster for the spring fair");
  events = await chat.events(id);
  await chat.close();
  vi.stubGlobal(
    "ResizeObserver",
    class {
      constructor(callback: () => void) {
        resized.push(callback);
      }
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  Element.prototype.scrollTo = scrollTo as unknown as Element["scrollTo"];
});
const ownScrollTo = Element.prototype.scrollTo;
beforeEach(() => {
  Object.assign(scroller, { height: 3000, view: 500, top: 0 });
  resized.length = 0;
  scrollTo.mockClear();
});
afterEach(cleanup);
afterAll(() => {
  for (const spy of spies) spy.mockRestore();
  Element.prototype.scrollTo = ownScrollTo;
  vi.unstubAllGlobals();
});

async function showTranscript(playedTo: number) {
  await renderReplayedTranscript(replayTransport(events, { playedTo }));
  return screen.getByRole("log", { name: "Conversation" });
}

/** The person scrolls the transcript up to `top`. */
function scrollUp(log: HTMLElement, top: number) {
  scroller.top = top;
  fireEvent.scroll(log);
}

const jump = () => screen.queryByRole("button", { name: /^Jump to latest/ });
const firstRequest = () => events.find((event) => event.type === "input.requested")!.seq;

describe("Jump to latest", () => {
  it("shows only while the person reads above the end, and says when something new arrived below", async () => {
    const log = await showTranscript(firstRequest() - 1);
    expect(scroller.top).toBe(2500);
    expect(jump()).toBeNull();

    scrollUp(log, 1200);
    expect(jump()?.textContent).toBe("↓Jump to latest");

    scroller.height = 3400; // a reply arrived below
    act(() => {
      for (const callback of resized) callback();
    });
    expect(scroller.top).toBe(1200);
    expect(jump()?.textContent).toBe("↓Jump to latest: new messages");

    scrollUp(log, 1100);
    expect(jump()?.textContent).toBe("↓Jump to latest: new messages");
    scroller.top = 2900; // back at the end, by scrolling down
    fireEvent.scroll(log);
    expect(jump()).toBeNull();
  });

  it("says a request waits, takes the person to it by keyboard, and moves focus into it", async () => {
    const log = await showTranscript(events.length);
    scrollUp(log, 400);
    const button = jump()!;
    expect(button.textContent).toBe("↓Jump to latest: a request waits for you");
    expect(button.dataset.state).toBe("waiting");
    button.focus();
    fireEvent.click(button);
    expect(scrollTo).toHaveBeenCalledWith(expect.objectContaining({ behavior: "smooth" }));
    expect(document.activeElement).toBe(screen.getByRole("region", { name: "Choose a template for your poster" }));
    expect(jump()).toBeNull();
  });

  it("jumps without smooth scrolling when the person asks for reduced motion", async () => {
    const media = vi
      .spyOn(window, "matchMedia")
      .mockImplementation((query: string) => ({ matches: query.includes("reduce"), media: query }) as MediaQueryList);
    const log = await showTranscript(events.length);
    scrollUp(log, 400);
    fireEvent.click(jump()!);
    expect(scrollTo).toHaveBeenCalledWith(expect.objectContaining({ behavior: "auto" }));
    media.mockRestore();
  });
});
