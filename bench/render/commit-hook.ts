/**
 * Counts React commits in React's plain production build, the way React DevTools sees them:
 * React reports every commit to `__REACT_DEVTOOLS_GLOBAL_HOOK__` when one is installed before
 * it loads. (The `<Profiler>` would need the profiling build, whose performance-track logging
 * costs more than the work measured.) Import this before React.
 */

/** When each commit happened (`performance.now()`), since the page loaded. */
export const commitTimes: number[] = [];

let renderers = 0;
(globalThis as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
  isDisabled: false,
  supportsFiber: true,
  renderers: new Map(),
  inject: () => ++renderers,
  checkDCE: () => {},
  onScheduleFiberRoot: () => {},
  onCommitFiberRoot: () => {
    commitTimes.push(performance.now());
  },
  onCommitFiberUnmount: () => {},
  onPostCommitFiberRoot: () => {},
};
