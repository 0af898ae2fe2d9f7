import type { StopKind } from "./coordination.js";

/** What a turn stopped from outside says, by what stopped it: the same on the instance that drives it as where the stop landed. */
export const stopReasons: Record<StopKind, string> = {
  cancel: "The person stopped the turn.",
  delete: "The session was deleted.",
  message: "The person sent a new message instead of answering.",
};

/** What a question of a tool says when the server running the tool stopped (a crash, a deploy) before it was answered. */
export const serverStopped = "The server running the tool stopped while the tool waited for this answer.";

/**
 * The reason a stopped turn's signals abort with: what a tool reads from `ctx.signal.reason`,
 * and what a question it asked with that signal is cancelled saying. An `AbortError`, as a
 * reason-less abort's, so code that tells aborts apart by name still does.
 */
export const stopped = (stop: StopKind) => new DOMException(stopReasons[stop], "AbortError");

/**
 * What the results and questions a stopped turn leaves say: the reason its signal aborted
 * with (a Stop's or a deletion's, `stopped`), else a Stop's.
 */
export function whyStopped(signal: AbortSignal): string {
  const { reason } = signal;
  return reason instanceof DOMException && reason.name === "AbortError" && reason.message
    ? reason.message
    : stopReasons.cancel;
}
