export { AgentProvider, type AgentProviderProps } from "./agent-provider.js";
export type { AgentView } from "./agent-view.js";
export { ParkedRequest, type ParkedRequestProps } from "./parked-request.js";
export { ParkedRequests, type ParkedRequestsProps } from "./parked-requests.js";
export {
  type AgentEndpoint,
  deleteSessionMutationOptions,
  type SessionListItem,
  sessionHistoryQueryOptions,
  sessionSnapshotQueryOptions,
} from "./query-options.js";
export * from "./schema-form/index.js";
export { type UseAgentOptions, useAgent } from "./use-agent.js";
export { useClientSelector } from "./use-client-selector.js";
export type { WidgetProps } from "./widget-props.js";
export { createWidgetRegistry, type WidgetFor, type WidgetMap, type WidgetRegistry } from "./widget-registry.js";
