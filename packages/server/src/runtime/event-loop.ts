/**
 * `setImmediate` and `clearImmediate` as they were when the server loaded. What the server
 * schedules with them is no time but a yield to the event loop (a tick's writes batched into
 * one commit, an answer on its way let in first), and a test's fake clock (`vi.useFakeTimers()`,
 * `@sinonjs/fake-timers`), which replaces them too, must not freeze it: deadlines follow the
 * fake clock, the server's own work goes on.
 */
export const { setImmediate, clearImmediate } = globalThis;

/** Resolves on the event loop's next turn, after the I/O already due. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
