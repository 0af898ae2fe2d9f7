/**
 * @hitl-kit/server: the agent loop that parks a turn on a person's answer. `createAgentRuntime`
 * runs the model and the tools over a durable store (`memoryStore` here,
 * `@hitl-kit/server/sqlite`, `@hitl-kit/server/postgres`) with exactly one result per tool
 * call; `createFetchHandler` serves the wire protocol as a web-standard `(Request) => Response`.
 * @packageDocumentation
 */
export { type Caller, type Identify, identityCookie } from "./http/caller.js";
export {
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
  type SessionAccess,
  type SessionAction,
} from "./http/fetch-handler.js";
export { type NodeHandler, type NodeHandlerOptions, toNodeHandler } from "./http/node-handler.js";
export type { RateLimitOptions } from "./http/rate-limiter.js";
export { type ServeCloseOptions, type Served, type ServeOptions, serve } from "./http/serve.js";
export {
  type Script,
  type ScriptContext,
  type ScriptedModelOptions,
  type ScriptedReply,
  scriptedModel,
} from "./models/scripted-model.js";
export { createAgentRuntime } from "./runtime/agent-runtime.js";
export type {
  AgentRuntime,
  CreatedSession,
  ResolutionView,
  RespondResult,
  RuntimeHealth,
  SentMessage,
} from "./runtime/agent-runtime-types.js";
export {
  type AbortCause,
  type Coordination,
  LeaseLost,
  type SessionLocker,
  type StopKind,
  type TurnLeases,
} from "./runtime/coordination.js";
export type { EventHub, EventListener } from "./runtime/event-hub.js";
export {
  type AskOptions,
  type AskResult,
  type Execute,
  type ImplementedTool,
  type ImplementOptions,
  implement,
  type Resolve,
  type ToolContext,
} from "./runtime/implement.js";
export type { AgentRuntimeOptions } from "./runtime/runtime-core.js";
export type {
  EventStreamsEvent,
  ModelCallFinishEvent,
  ModelCallStartEvent,
  ModelFinishReason,
  ModelUsage,
  RequestParkedEvent,
  RequestSettledEvent,
  RuntimeTelemetry,
  StoreUnavailableEvent,
  TelemetryError,
  ToolCallFinishEvent,
  ToolCallStartEvent,
  TurnFinishEvent,
  TurnStartCause,
  TurnStartEvent,
} from "./runtime/telemetry.js";
export type { RuntimeTool } from "./runtime/tool-registry.js";
export { ToolTimedOut } from "./runtime/tool-timeout.js";
export { keepLastMessages } from "./runtime/transcript.js";
export { memoryStore } from "./store/memory-store.js";
export type { SnapshotPage, SnapshotQuery } from "./store/project-events.js";
export type {
  KeyedMessage,
  ListSessionsOptions,
  RequestRecord,
  Resolution,
  SessionCursor,
  SessionRecord,
  SessionStore,
  SessionSummary,
  ToolCallRecord,
  ToolCallState,
  TurnState,
  WriteBatch,
  WriteResult,
} from "./store/records.js";
export { StoreUnavailable, type StoreUnavailableOptions } from "./store/store-unavailable.js";
