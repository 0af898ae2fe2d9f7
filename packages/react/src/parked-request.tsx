import type { AgentClient } from "@hitl-kit/client";
import { type ComponentType, memo, useContext, useMemo } from "react";
import { AgentContext } from "./agent-context.js";
import { FallbackWidget } from "./schema-form/index.js";
import { useClientSelector } from "./use-client-selector.js";
import type { WidgetProps } from "./widget-props.js";
import type { WidgetRegistry } from "./widget-registry.js";

/** Props of {@link ParkedRequest}. */
export interface ParkedRequestProps {
  requestId: string;
  /** The widgets by tool; a request whose tool has none renders `fallback`. */
  widgets?: WidgetRegistry;
  /** The client, or the `useAgent()` view (which carries it); from `<AgentProvider>` when omitted. */
  agent?: AgentClient | { client: AgentClient };
  /** What renders unregistered tools (default: a form generated from the answer schema). */
  fallback?: ComponentType<WidgetProps>;
}

/**
 * Renders one request with its registered widget, or the fallback form. It re-renders only
 * when this request's state changes; its verbs keep their identity.
 */
export const ParkedRequest = memo(function ParkedRequest({
  requestId,
  widgets,
  agent,
  fallback = FallbackWidget,
}: ParkedRequestProps) {
  const client = useRequiredClient(agent);
  const state = useClientSelector(client, (view) => view.requests[requestId]);
  const verbs = useMemo(
    () => ({
      respond: (value: unknown) => void client.respond(requestId, value),
      decline: (reason?: string) => void client.decline(requestId, reason),
      cancel: () => void client.cancel(requestId),
    }),
    [client, requestId],
  );
  if (!state) return null;
  const Widget = widgets?.get(state.request.toolName) ?? fallback;
  return (
    <Widget
      request={state.request}
      status={state.status}
      {...verbs}
      {...(state.error ? { error: state.error } : {})}
      {...(state.resolution ? { resolution: state.resolution } : {})}
    />
  );
});

/** The client from the `agent` prop, else from `<AgentProvider>`. */
export function useRequiredClient(agent: AgentClient | { client: AgentClient } | undefined): AgentClient {
  const provided = useContext(AgentContext);
  const client = agent ? ("client" in agent ? agent.client : agent) : provided;
  if (!client) throw new Error("Pass agent={useAgent(...)} or render inside an <AgentProvider>.");
  return client;
}
