/**
 * How long a stream's reader works in one task before it lets the page render and handle
 * input: a backlog of thousands of events is parsed over several short tasks, never one
 * long one (a long task is one over 50 ms).
 */
export const SLICE_MS = 8;

/**
 * Resolves in a new task, behind the rendering and input already queued: a
 * `MessageChannel` message where there is one (no 4 ms clamp, unlike a nested
 * `setTimeout`), else `setTimeout(0)`.
 */
export function nextTask(): Promise<void> {
  if (typeof MessageChannel !== "function") return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(undefined);
  });
}
