import { isDeepStrictEqual } from "node:util";
import type { EventInput, ProtocolEvent } from "@hitl-kit/protocol";
import { StoreUnavailable } from "../store/store-unavailable.js";

/** How long a turn waits before it tries the store again after its `tries`-th failure: 100 ms, doubling up to 5 s. */
export function outageDelay(tries: number): number {
  return Math.min(5_000, 100 * 2 ** tries);
}

/** Whether a turn may wait `error` out: a store that cannot be reached for now, not one that cannot serve until fixed. */
export function isPassingOutage(error: unknown): error is StoreUnavailable {
  return error instanceof StoreUnavailable && !error.lasting;
}

/** A signal that aborts when `signal` does with a reason `test` accepts (the turn lost, not stopped). */
export function abortedOnlyFor(signal: AbortSignal, test: (reason: unknown) => boolean): AbortSignal {
  const only = new AbortController();
  const pass = () => {
    if (test(signal.reason)) only.abort(signal.reason);
  };
  if (signal.aborted) pass();
  else signal.addEventListener("abort", pass, { once: true });
  return only.signal;
}

/**
 * Where `written` stands in `logged` as one run, in order (a batch is one transaction): the
 * events of that run, or `undefined` when the batch is not there. A write that failed because
 * the store could not be reached may have been applied all the same; a model step's streamed
 * events name the message it started, which no other writer names, so finding them tells.
 */
export function findWritten(
  logged: readonly ProtocolEvent[],
  written: readonly EventInput[],
): ProtocolEvent[] | undefined {
  if (written.length === 0) return [];
  for (let start = 0; start + written.length <= logged.length; start++) {
    if (written.every((event, index) => sameEvent(logged[start + index]!, event))) {
      return logged.slice(start, start + written.length);
    }
  }
  return undefined;
}

/** Whether a logged event is the one written: every field the writer gave it is the same (the store adds seq, sessionId, at). */
function sameEvent(logged: ProtocolEvent, written: EventInput): boolean {
  return Object.entries(written).every(([key, value]) =>
    isDeepStrictEqual((logged as unknown as Record<string, unknown>)[key], value),
  );
}
