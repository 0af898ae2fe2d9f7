/**
 * @hitl-kit/client: a framework-free store for one hitl-kit session. It follows the
 * session's event stream, folds it into immutable state, and sends the person's messages
 * and answers. React apps want `@hitl-kit/react`, which binds it.
 * @packageDocumentation
 */

export {
  AgentClient,
  type AgentClientOptions,
  createAgentClient,
  type StateListener,
} from "./agent-client.js";
export { createApiClient } from "./api-client.js";
export { ApiError } from "./api-error.js";
export type {
  ApiClient,
  ApiClientOptions,
  CallOptions,
  EventsOptions,
  FetchLike,
  HeaderValues,
  OpenStreamOptions,
  Resolution,
  RespondReply,
  SessionPage,
  SessionSummary,
} from "./api-types.js";
export { type BackoffOptions, backoffDelay } from "./backoff.js";
export type { ClientAction } from "./client-action.js";
export {
  type ClientError,
  type ClientState,
  type ClientStateOf,
  type ClientStatus,
  type ConnectionState,
  initialClientState,
  type OutgoingMessage,
} from "./client-state.js";
export type { CommandError, CommandResult } from "./command-result.js";
export { clearUnsentMessages, type OutboxStorage, type UnsentMessage, unsentMessages } from "./outbox-keeper.js";
export { plainErrorMessage } from "./plain-error-message.js";
export { reduceClientState } from "./reduce-client-state.js";
export { settledState, type WireResolution } from "./reduce-requests.js";
export {
  type RecordedCommand,
  type ReplayOptions,
  type ReplayTransport,
  replayTransport,
} from "./replay-transport.js";
export { type RequestRef, requestIdOf } from "./request-ref.js";
export {
  type AnswerTo,
  type FailedRequestState,
  isOpen,
  type PendingRequestState,
  type RequestError,
  type RequestOf,
  type RequestResolution,
  type RequestState,
  type RequestStateOf,
  type RequestStatus,
  type SentAnswer,
  type SettledMember,
  type SettledRequestState,
  type SettledStatus,
  type SubmittingRequestState,
  type TypedInputRequest,
} from "./request-state.js";
export type { RetryOptions } from "./retry.js";
export { type SseTransportOptions, sseTransport } from "./sse-transport.js";
export { type ToolCallBase, type ToolCallState, type ToolCallStatus, toolCallStateOf } from "./tool-call-state.js";
export type { AgentCommand, CommandReply, EventSink, StreamOptions, Transport } from "./transport.js";
