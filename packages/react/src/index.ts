/**
 * @hitl-kit/react: binds a hitl-kit session to React. `useAgent` follows the session (typed
 * from your tool map), `createWidgetRegistry` maps each tool to the widget that answers it,
 * `<ParkedRequests>` and `<ToolCallPart>` render them, and `useParkedRequest` gives one
 * request's state and verbs to a UI you draw yourself.
 * @packageDocumentation
 */
export { type AnswerTo, clearUnsentMessages, plainErrorMessage, type RequestOf } from "@hitl-kit/client";
export { AgentProvider, type AgentProviderProps } from "./agent-provider.js";
export type { AgentView } from "./agent-view.js";
export { MessageText, type MessageTextProps, splitTextBlocks, type TextBlocks } from "./message-text.js";
export { ParkedRequest, type ParkedRequestProps } from "./parked-request.js";
export { ParkedRequests, type ParkedRequestsProps } from "./parked-requests.js";
export * from "./schema-form/index.js";
export { ToolCallCard } from "./tool-call-card.js";
export { ToolCallPart, type ToolCallPartProps } from "./tool-call-part.js";
export { type UseAgentOptions, useAgent } from "./use-agent.js";
export { useClientSelector } from "./use-client-selector.js";
export {
  type ParkedRequestView,
  type UseParkedRequestOptions,
  useParkedRequest,
} from "./use-parked-request.js";
export { useWidgetTexts, WidgetTextsProvider } from "./use-widget-texts.js";
export type { RequestVerbs, WidgetProps, WidgetPropsFor } from "./widget-props.js";
export {
  createWidgetRegistry,
  type ToolCallMap,
  type ToolCallProps,
  type ToolCallRendererFor,
  type WidgetFor,
  type WidgetMap,
  type WidgetRegistry,
} from "./widget-registry.js";
export {
  defaultWidgetTexts,
  type ExtraWidgetTexts,
  type IssueTexts,
  type WidgetTextOverrides,
  type WidgetTexts,
} from "./widget-texts.js";
