import type { InputRequest, ResolutionAction, ResolvedRequest, ToolOutcome, ValidationIssue } from "@hitl-kit/protocol";
import type { UIMessageChunk } from "ai";

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
      resolution: ResolvedRequest["resolution"];
    };

/**
 * The name of the transient data part (`data-hitl-settled`, seen only by `useChat`'s
 * `onData`) that says a request of an earlier reply was settled: a message sent while it was
 * open cancelled it. See {@link applyHitlSettlement}.
 */
export const SETTLED_PART = "hitl-settled";

/** What a `data-hitl-settled` part holds: the request, how it was settled, and its call's one result. */
export interface HitlSettledData {
  /** The request, as its `data-hitl-request` part holds it. */
  request: InputRequest;
  /** How it was settled (a new message, a Stop: `cancel`). */
  resolution: ResolvedRequest["resolution"];
  /** Its call's one result. */
  result: { outcome: ToolOutcome; output: unknown };
}

/** A `data-hitl-settled` part, as `onData` gets it and `cancelTurn` answers it. */
export interface HitlSettledPart {
  /** `data-hitl-settled`. */
  type: `data-${typeof SETTLED_PART}`;
  /** The request's id. */
  id: string;
  /** The request, its resolution and its call's result. */
  data: HitlSettledData;
  /** Not kept in a message: `useChat` hands it to `onData` only. */
  transient: true;
}

/** The data part types the transport streams, for `UIMessage<Metadata, HitlDataTypes>`. */
export type HitlDataTypes = { [REQUEST_PART]: HitlRequestData; [SETTLED_PART]: HitlSettledData };

/** Whether the person answered a request (an approval approved or refused), not cancelled and not expired. */
export function answered(action: ResolutionAction): boolean {
  return action === "accept" || action === "decline";
}

/** The chunk that ends a tool part with its call's one result: its output, a denial (an approval declined), or an error's text. */
export function resultChunk(toolCallId: string, outcome: string, output: unknown, approval: boolean): ResultChunk {
  if (outcome === "ok") return { type: "tool-output-available", toolCallId, output };
  if (outcome === "declined" && approval) return { type: "tool-output-denied", toolCallId };
  return { type: "tool-output-error", toolCallId, errorText: errorTextOf(outcome, output) };
}

type ResultChunk = Extract<
  UIMessageChunk,
  { type: "tool-output-available" | "tool-output-denied" | "tool-output-error" }
>;

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
