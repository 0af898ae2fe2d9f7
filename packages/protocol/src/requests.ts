import type { JsonSchema } from "./schema.js";

/** What a request asks of the person: to approve a server tool call, or to provide an answer. */
export type RequestKind = "approval" | "input";

/**
 * A parked tool call waiting for a person: one request per tool call. `answerSchema` is
 * the JSON Schema the answer's `value` must satisfy; the server checks it again.
 */
export interface InputRequest {
  /** The request's id, which an `InputResponse` names. */
  requestId: string;
  /** The parked tool call's id, as in its `tool.called` event. */
  toolCallId: string;
  /** The tool's name, which picks the widget in a registry. */
  toolName: string;
  /** `approval` for a server tool waiting for a yes or no, `input` for an answer. */
  kind: RequestKind;
  /** The question, when the tool defines one. */
  prompt?: string;
  /** The tool call's input, as the model wrote it and the tool's input schema accepted it. */
  input: unknown;
  /** The JSON Schema an accepted answer's `value` must satisfy. */
  answerSchema: JsonSchema;
  /** ISO 8601; the request settles as expired then. */
  expiresAt?: string;
}

/** How a parked request was settled: the person's action, or `expire` when its time ran out. */
export type ResolutionAction = "accept" | "decline" | "cancel" | "expire";

/**
 * Why the server cancelled a request, beside its `reason` in English, for a UI to say in the
 * person's language: `new_message` (the person wrote instead of answering), `stopped` (they
 * stopped the turn), `session_deleted`, `turn_failed` (the reply failed: the model or the
 * server), `server_stopped` (the server running the asking tool stopped before the answer),
 * `tool_timeout` (the asking tool ran out of time), `tool_failed` and `tool_finished` (the
 * asking tool ended, with an error or without the answer), `question_changed` (a deploy
 * changed the question, which is asked again). A cancel the person made, or one whose reason
 * the tool gave itself, has none.
 */
export type ReasonCode =
  | "new_message"
  | "stopped"
  | "session_deleted"
  | "turn_failed"
  | "server_stopped"
  | "tool_timeout"
  | "tool_failed"
  | "tool_finished"
  | "question_changed";
