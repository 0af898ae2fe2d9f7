/**
 * Counts React commits, and the frame each one is painted in, in React's plain production
 * build. React reports every commit to `__REACT_DEVTOOLS_GLOBAL_HOOK__` when one is installed
 * before it loads, as React DevTools does (the `<Profiler>` would need the profiling build,
 * whose performance-track logging costs more than the work measured). Import this first.
 *
 * A commit's frame: `requestAnimationFrame` is wrapped so the first callback of a frame
 * starts it; a commit made while that frame's callbacks run (until a task posted then
 * runs, after the frame's rendering) is painted in it, and a commit made between frames is
 * painted in the next one. So "commits in one frame" does not depend on the order of
 * rAF callbacks, nor on a late main thread.
 */

/** One commit: when (`performance.now()`) and the number of the frame that paints it. */
export interface Commit {
  time: number;
  frame: number;
}

/** Every commit since the page loaded. */
export const commits: Commit[] = [];

let frame = 0;
let frameTime: number | undefined;
let inFrame = false;
const afterFrame = new MessageChannel();
afterFrame.port1.onmessage = () => {
  inFrame = false;
};

const raf = globalThis.requestAnimationFrame.bind(globalThis);
globalThis.requestAnimationFrame = (callback) =>
  raf((time) => {
    if (time !== frameTime) {
      frameTime = time;
      frame++;
      inFrame = true;
      afterFrame.port2.postMessage(undefined);
    }
    callback(time);
  });

let renderers = 0;
(globalThis as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
  isDisabled: false,
  supportsFiber: true,
  renderers: new Map(),
  inject: () => ++renderers,
  checkDCE: () => {},
  onScheduleFiberRoot: () => {},
  onCommitFiberRoot: () => {
    commits.push({ time: performance.now(), frame: inFrame ? frame : frame + 1 });
  },
  onCommitFiberUnmount: () => {},
  onPostCommitFiberRoot: () => {},
};
