/**
 * @hitl-kit/protocol: the wire protocol of hitl-kit and the tool definitions both sides
 * share — events, requests, answers and the session snapshot as types; the decoders and
 * the SSE codec for them; `defineTool` / `defineClientTool` and approval policies; schema
 * helpers that accept zod, any Standard Schema or plain JSON Schema. No React, no Node APIs.
 *
 * Converters from other frameworks' tool shapes are in `@hitl-kit/protocol/convert`.
 * `@hitl-kit/protocol/internal` is for hitl-kit's own packages and is not covered by semver.
 * @packageDocumentation
 */
export {
  type ApprovalContext,
  type ApprovalOption,
  type ApprovalPolicy,
  always,
  never,
  once,
} from "./approval.js";
export {
  askQuestion,
  type QuestionAnswer,
  type QuestionInput,
  type QuestionInputOf,
  type QuestionInputSchema,
} from "./ask-question.js";
export {
  type CancelBody,
  type CreateSessionBody,
  type InputResponse,
  isIdempotencyKey,
  type RespondBody,
  type ResponseAction,
  type SendMessageBody,
} from "./command-bodies.js";
export { decodeEvent, type EventFrame, eventFrameDecoder, parseErrorBody, parseSnapshot } from "./decode-wire.js";
export {
  type AnyToolDefinition,
  type ApprovalAnswer,
  type AskingTool,
  approvalAnswerSchema,
  type ClientToolDefinition,
  defineClientTool,
  defineTool,
  type PromptOption,
  type ServerToolDefinition,
  type ToolAnswerOf,
  type ToolInputOf,
} from "./define-tool.js";
export type { ErrorBody } from "./error-body.js";
export {
  type ClientErrorCode,
  ERROR_CODES,
  type ErrorCode,
  isErrorCode,
  ProtocolError,
  type ServerErrorCode,
} from "./errors.js";
export { EVENT_TYPES } from "./event-types.js";
export type {
  EventEnvelope,
  EventInput,
  EventOf,
  EventPayloads,
  EventType,
  MessageRole,
  ProtocolEvent,
  StreamedEventType,
  ToolOutcome,
  TurnError,
} from "./events.js";
export { emptySnapshot, reduceSession, resolutionOf } from "./reduce-session.js";
export type { InputRequest, ReasonCode, RequestKind, ResolutionAction } from "./requests.js";
export {
  type Infer,
  type InferInput,
  type JsonSchema,
  jsonSchema,
  type SchemaLike,
  type TypedJsonSchema,
  toJsonSchema,
  type ValidationIssue,
  type ValidationResult,
  validate,
} from "./schema.js";
export type {
  Message,
  MessagePart,
  ReasoningPart,
  ResolvedRequest,
  SessionSnapshot,
  SessionStatus,
  TextPart,
  ToolPart,
} from "./snapshot.js";
export { eventFrameEncoder } from "./sse.js";
export { MAX_TAKEN_KEYS, type TakenMessage, type TakenMessages } from "./taken-messages.js";
export type {
  ToolAnswer,
  ToolInput,
  ToolName,
  ToolNamed,
  ToolSet,
  ToolUnion,
} from "./tool-map.js";
export { validateJsonSchema } from "./validate-json-schema.js";
export { PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER } from "./version.js";
