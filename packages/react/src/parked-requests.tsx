"use client";

import type { AgentClient } from "@hitl-kit/client";
import type { ComponentType } from "react";
import { ParkedRequest } from "./parked-request.js";
import { useClientSelector } from "./use-client-selector.js";
import { useRequiredClient } from "./use-required-client.js";
import type { WidgetProps } from "./widget-props.js";
import type { WidgetRegistry } from "./widget-registry.js";

/** Props of {@link ParkedRequests}. */
export interface ParkedRequestsProps {
  /** The widgets by tool; a request whose tool has none renders `fallback`. */
  widgets?: WidgetRegistry;
  /** The client, or the `useAgent()` view (which carries it); from `<AgentProvider>` when omitted. */
  agent?: AgentClient | { client: AgentClient };
  /** What renders unregistered tools (default: a form generated from the answer schema). */
  fallback?: ComponentType<WidgetProps>;
  /** Which open requests to show (default: all). */
  filter?: (toolName: string) => boolean;
  /** The class of the element around the requests (default: `hitl-parked-requests`). */
  className?: string;
}

/**
 * Renders every open request of the session — pending, submitting or refused — each with
 * its widget or the fallback form. Several parked at once can be answered in any order.
 * @example
 * <ParkedRequests agent={agent} widgets={widgets} />
 */
export function ParkedRequests({ widgets, agent, fallback, filter, className }: ParkedRequestsProps) {
  const client = useRequiredClient(agent, "<ParkedRequests>");
  // A string of ids changes only when the set of open requests does.
  const ids = useClientSelector(client, (view) =>
    view.pending
      .filter((state) => !filter || filter(state.request.toolName))
      .map((state) => state.request.requestId)
      .join("\n"),
  );
  if (ids === "") return null;
  return (
    <div className={className ?? "hitl-parked-requests"}>
      {ids.split("\n").map((requestId) => (
        <ParkedRequest
          key={requestId}
          requestId={requestId}
          agent={client}
          {...(widgets ? { widgets } : {})}
          {...(fallback ? { fallback } : {})}
        />
      ))}
    </div>
  );
}
