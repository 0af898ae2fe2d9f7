"use client";

import type { AgentClient } from "@hitl-kit/client";
import { type ComponentType, memo } from "react";
import { FallbackWidget } from "./schema-form/index.js";
import { useParkedRequest } from "./use-parked-request.js";
import type { WidgetProps } from "./widget-props.js";
import type { WidgetRegistry } from "./widget-registry.js";

/** Props of {@link ParkedRequest}. */
export interface ParkedRequestProps {
  /** The id of the request to render; nothing renders while the client does not know it. */
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
 * @example
 * <ParkedRequest requestId={part.requestId} widgets={widgets} />
 */
export const ParkedRequest = memo(function ParkedRequest({
  requestId,
  widgets,
  agent,
  fallback = FallbackWidget,
}: ParkedRequestProps) {
  const parked = useParkedRequest(requestId, { agent });
  if (!parked) return null;
  const Widget = widgets?.get(parked.request.toolName) ?? fallback;
  return <Widget {...parked} />;
});
