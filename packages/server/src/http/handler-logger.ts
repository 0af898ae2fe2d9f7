/** Where hitl-kit logs: `console`, or what the app gave the runtime or the fetch handler. */
export type Logger = Pick<Console, "warn" | "error">;

/** Shared by every copy of this module a dev server or a bundle may have loaded. */
const key = Symbol.for("hitl-kit.handler-logger");

/** `handler`, marked with the logger it reports to, so the Node adapter around it logs there too. */
export function withLogger<T extends object>(handler: T, logger: Logger): T {
  Object.defineProperty(handler, key, { value: logger });
  return handler;
}

/** The logger a hitl-kit fetch handler reports to; `undefined` for any other function. */
export function loggerOf(handler: object): Logger | undefined {
  return (handler as { [key]?: Logger })[key];
}
