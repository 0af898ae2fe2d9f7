import type { ReasonCode } from "@hitl-kit/protocol";
import type { StopKind } from "./coordination.js";
import { isOutOfTimeReason } from "./tool-timeout.js";

/** What a turn stopped from outside says, by what stopped it: the same on the instance that drives it as where the stop landed. */
export const stopReasons: Record<StopKind, string> = {
  cancel: "The person stopped the turn.",
  delete: "The session was deleted.",
  message: "The person sent a new message instead of answering.",
};

/** What a question of a tool says when the server running the tool stopped (a crash, a deploy) before it was answered. */
export const serverStopped = "The server running the tool stopped while the tool waited for this answer.";

/** Why a question still open was cancelled when the tool's next run asked it with another schema. */
export const questionChanged = "This question changed when the server was updated, so it is asked again.";

/** What a question still open says when its tool ended: with an error, or without the answer. */
export const toolEnded = {
  error: "The tool stopped with an error before this was answered.",
  ok: "The tool finished without this answer.",
};

const codes = new Map<string, ReasonCode>([
  [stopReasons.message, "new_message"],
  [stopReasons.cancel, "stopped"],
  [stopReasons.delete, "session_deleted"],
  [serverStopped, "server_stopped"],
  [questionChanged, "question_changed"],
  [toolEnded.error, "tool_failed"],
  [toolEnded.ok, "tool_finished"],
]);

/**
 * The code of a reason the server gives when it cancels a request (one of the sentences
 * above, or a tool's time running out), for a UI to say it in the person's language; none
 * for a reason the tool gave itself.
 */
export function reasonCodeOf(reason: string | undefined): ReasonCode | undefined {
  if (reason === undefined) return undefined;
  return codes.get(reason) ?? (isOutOfTimeReason(reason) ? "tool_timeout" : undefined);
}

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
