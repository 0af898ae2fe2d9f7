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
export { askQuestion } from "./ask-question.js";
export {
  CancelBody,
  CreateSessionBody,
  InputResponse,
  RespondBody,
  ResponseAction,
  SendMessageBody,
} from "./command-bodies.js";
export { decodeEvent, parseErrorBody, parseSnapshot } from "./decode-wire.js";
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
export { ErrorBody } from "./error-body.js";
export { ERROR_STATUS, type ErrorCode, ProtocolError } from "./errors.js";
export { EVENT_TYPES } from "./event-types.js";
export {
  type EventInput,
  type EventOf,
  EventSchemas,
  type EventType,
  MessageRole,
  ProtocolEvent,
  ToolOutcome,
  TurnError,
} from "./events.js";
export {
  fromReactiveAgentsTool,
  fromVellumTool,
  type ReactiveAgentsToolDefinition,
  type RiskLevel,
  type VellumToolDefinition,
} from "./port-tools.js";
export { emptySnapshot, reduceSession } from "./reduce-session.js";
export { InputRequest, RequestKind, ResolutionAction } from "./requests.js";
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
export {
  Message,
  MessagePart,
  ReasoningPart,
  ResolvedRequest,
  SessionSnapshot,
  SessionStatus,
  TextPart,
  ToolPart,
} from "./snapshot.js";
export { encodeComment, encodeEvent } from "./sse.js";
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
