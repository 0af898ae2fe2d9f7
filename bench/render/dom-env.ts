import { Window } from "happy-dom";

/** One frame of a 60 Hz display, in milliseconds. */
export const FRAME_MS = 1000 / 60;

const window = new Window({ url: "http://bench.local/" });
const globals = globalThis as Record<string, unknown>;
// The DOM comes from happy-dom; fetch, streams, timers and TextDecoder stay Node's own.
for (const name of [
  "document",
  "navigator",
  "Node",
  "Text",
  "Element",
  "HTMLElement",
  "HTMLDivElement",
  "HTMLParagraphElement",
  "Event",
  "CustomEvent",
  "MutationObserver",
  "NodeFilter",
  "getComputedStyle",
]) {
  if (name === "navigator") Object.defineProperty(globalThis, name, { value: window.navigator, configurable: true });
  else globals[name] = (window as unknown as Record<string, unknown>)[name];
}
globals.window = globalThis;
Object.assign(globalThis, { document: window.document });

// A browser paints at most once per frame; happy-dom's requestAnimationFrame runs at once,
// so frames follow a 60 Hz clock here, as a display's would.
const frameCallbacks = new Map<number, FrameRequestCallback>();
let nextHandle = 1;
let frameScheduled = false;
const runFrame = () => {
  frameScheduled = false;
  const callbacks = [...frameCallbacks.values()];
  frameCallbacks.clear();
  const time = performance.now();
  for (const callback of callbacks) callback(time);
};
globals.requestAnimationFrame = (callback: FrameRequestCallback): number => {
  frameCallbacks.set(nextHandle, callback);
  if (!frameScheduled) setTimeout(runFrame, FRAME_MS - (performance.now() % FRAME_MS));
  frameScheduled = true;
  return nextHandle++;
};
globals.cancelAnimationFrame = (handle: number) => void frameCallbacks.delete(handle);

/** The happy-dom window the render benchmarks draw into. */
export const domWindow = window;
