export {
  type ApprovalContext,
  type ApprovalOption,
  type ApprovalPolicy,
  always,
  never,
  once,
  requiresApproval,
  toApprovalPolicy,
} from "./approval.js";
export { askQuestion, type QuestionAnswer, type QuestionInput, type QuestionInputSchema } from "./ask-question.js";
export { assertCheckableTool } from "./checkable-tool.js";
export type {
  CancelBody,
  CreateSessionBody,
  InputResponse,
  RespondBody,
  ResponseAction,
  SendMessageBody,
} from "./command-bodies.js";
export { type CommandBodies, parseCommandBody } from "./decode-command.js";
export { decodeEvent, type EventFrame, eventFrameDecoder, parseErrorBody, parseSnapshot } from "./decode-wire.js";
export {
  type AnyToolDefinition,
  type ApprovalAnswer,
  approvalAnswerSchema,
  type ClientToolDefinition,
  canPark,
  defineClientTool,
  defineTool,
  type PromptOption,
  promptFor,
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
  EventInput,
  EventOf,
  EventType,
  MessageRole,
  ProtocolEvent,
  StreamedEventType,
  ToolOutcome,
  TurnError,
} from "./events.js";
export { findUnsupportedKeyword, type UnsupportedKeyword } from "./json-schema/find-unsupported-keyword.js";
export {
  fromReactiveAgentsTool,
  fromVellumTool,
  type ReactiveAgentsToolDefinition,
  type RiskLevel,
  type VellumToolDefinition,
} from "./port-tools.js";
export { emptySnapshot, reduceSession } from "./reduce-session.js";
export type { InputRequest, RequestKind, ResolutionAction } from "./requests.js";
export {
  type Infer,
  isStandardSchema,
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
export { encodeComment, eventFrameEncoder } from "./sse.js";
export {
  indexTools,
  type ToolAnswer,
  type ToolInput,
  type ToolName,
  type ToolNamed,
  type ToolSet,
  type ToolUnion,
} from "./tool-map.js";
export { validateJsonSchema } from "./validate-json-schema.js";
export { PROTOCOL_VERSION } from "./version.js";
