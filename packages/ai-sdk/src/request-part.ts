import type { InputRequest, ResolutionAction, ToolOutcome, ValidationIssue } from "@hitl-kit/protocol";

/** The name of the data part that carries a parked request: parts of type `data-hitl-request`. */
export const REQUEST_PART = "hitl-request";

/**
 * What a `data-hitl-request` part holds: the parked request (its prompt, input and answer
 * schema, as the server sent it) and whether it is still open. Its part id is the request id.
 */
export type HitlRequestData =
  | {
      request: InputRequest;
      state: "open";
      resolution?: never;
      /** Why the server refused the person's last answer (`422`): the request is open, to answer again. */
      refused?: { code: string; message: string; issues?: ValidationIssue[] };
    }
  | {
      request: InputRequest;
      state: "settled";
      resolution: { action: ResolutionAction; value?: unknown; reason?: string };
    };

/**
 * The name of the transient data part (`data-hitl-settled`, seen only by `useChat`'s
 * `onData`) that says a request of an earlier reply was settled: a message sent while it was
 * open cancelled it. See {@link applyHitlSettlement}.
 */
export const SETTLED_PART = "hitl-settled";

/** What a `data-hitl-settled` part holds: the request, how it was settled, and its call's one result. */
export interface HitlSettledData {
  request: InputRequest;
  resolution: { action: ResolutionAction; value?: unknown; reason?: string };
  result: { outcome: ToolOutcome; output: unknown };
}

/** A `data-hitl-settled` part, as `onData` gets it and `cancelTurn` answers it. */
export interface HitlSettledPart {
  type: `data-${typeof SETTLED_PART}`;
  id: string;
  data: HitlSettledData;
  transient: true;
}

/** The data part types the transport streams, for `UIMessage<Metadata, HitlDataTypes>`. */
export type HitlDataTypes = { [REQUEST_PART]: HitlRequestData; [SETTLED_PART]: HitlSettledData };

/** The text of a result that is not `ok`, for `errorText`. */
export function errorTextOf(outcome: string, output: unknown): string {
  if (typeof output === "string") return output;
  if (typeof output === "object" && output !== null) {
    if ("message" in output && typeof output.message === "string") return output.message;
    if ("reason" in output && typeof output.reason === "string") return output.reason;
  }
  return `The tool call ended ${outcome}.`;
}

/** The UI message id of the assistant's reply to the user message `userMessageId`. */
export function replyIdOf(userMessageId: string): string {
  return `${userMessageId}.reply`;
}
