import type { JsonSchema } from "./schema.js";

/** What a request asks of the person: to approve a server tool call, or to provide an answer. */
export type RequestKind = "approval" | "input";

/**
 * A parked tool call waiting for a person: one request per tool call. `answerSchema` is
 * the JSON Schema the answer's `value` must satisfy; the server checks it again.
 */
export interface InputRequest {
  requestId: string;
  toolCallId: string;
  toolName: string;
  kind: RequestKind;
  /** The question, when the tool defines one. */
  prompt?: string;
  /** The tool call's input, as the model wrote it and the tool's input schema accepted it. */
  input: unknown;
  answerSchema: JsonSchema;
  /** ISO 8601; the request settles as expired then. */
  expiresAt?: string;
}

/** How a parked request was settled: the person's action, or `expire` when its time ran out. */
export type ResolutionAction = "accept" | "decline" | "cancel" | "expire";
