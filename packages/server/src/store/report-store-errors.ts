import type { SessionStore } from "./records.js";

/** The methods of a {@link SessionStore} that reach its database: all but `coordinate` and `close`. */
export const STORE_CALLS = [
  "createSession",
  "getSession",
  "listSessions",
  "countSessions",
  "deleteSession",
  "listIdleSessions",
  "readEvents",
  "readSnapshot",
  "streamingMessageIds",
  "readTranscript",
  "getToolCalls",
  "getRequest",
  "getOpenRequests",
  "findKeyedTurn",
  "listSessionsToRecover",
  "listExpiredRequests",
  "nextExpiry",
  "write",
] as const satisfies readonly (keyof SessionStore)[];

/**
 * `target` with each of its methods `names` throwing what `asStoreError` makes of a failure
 * (the same object: its methods are replaced), so a store's callers see its database's
 * errors as the store reports them (`StoreUnavailable` for an outage, say).
 */
export function reportStoreErrors<T extends object>(
  target: T,
  names: readonly (keyof T)[],
  asStoreError: (error: unknown) => unknown,
): T {
  for (const name of names) {
    const method = target[name] as (...args: unknown[]) => unknown;
    target[name] = (async (...args: unknown[]) => {
      try {
        return await method.apply(target, args);
      } catch (error) {
        throw asStoreError(error);
      }
    }) as T[keyof T];
  }
  return target;
}
