"use client";

import { type AgentClient, toolCallStateOf } from "@hitl-kit/client";
import type { ToolPart } from "@hitl-kit/protocol";
import { type ComponentType, memo } from "react";
import { ParkedRequest } from "./parked-request.js";
import { ToolCallCard } from "./tool-call-card.js";
import type { WidgetProps } from "./widget-props.js";
import type { ToolCallProps, WidgetRegistry } from "./widget-registry.js";

/** Props of {@link ToolCallPart}. */
export interface ToolCallPartProps {
  /** The message's tool part. */
  part: ToolPart;
  /** Widgets for parked calls and renderers for the others, by tool. */
  widgets?: WidgetRegistry;
  /** The client, or the `useAgent()` view; from `<AgentProvider>` when omitted. Only a parked call needs it. */
  agent?: AgentClient | { client: AgentClient };
  /** What renders a parked call whose tool has no widget (default: the form from its answer schema). */
  fallback?: ComponentType<WidgetProps>;
  /** What renders a call that does not park whose tool has no renderer (default: {@link ToolCallCard}). */
  toolCallFallback?: ComponentType<ToolCallProps>;
}

/**
 * Renders any tool call of a message in one place: a call that asked a person with its
 * widget (through `<ParkedRequest>`, so it stays visible with its answer once settled;
 * one per request, for a call that asked more than once),
 * and a call that does not park — a server tool running, done or failed — with the
 * registry's renderer for its tool, or {@link ToolCallCard}.
 * @example
 * {message.parts.map((part) =>
 *   part.type === "tool" ? <ToolCallPart key={part.toolCallId} part={part} widgets={widgets} /> : null,
 * )}
 */
export const ToolCallPart = memo(function ToolCallPart({
  part,
  widgets,
  agent,
  fallback,
  toolCallFallback = ToolCallCard,
}: ToolCallPartProps) {
  if (part.requestId !== undefined) {
    // Every request of the call, the earlier ones settled (an approval, a first question) above the latest.
    return [...(part.asked ?? []), part.requestId].map((requestId) => (
      <ParkedRequest
        key={requestId}
        requestId={requestId}
        {...(agent ? { agent } : {})}
        {...(widgets ? { widgets } : {})}
        {...(fallback ? { fallback } : {})}
      />
    ));
  }
  const state = toolCallStateOf(part);
  if (!state) return null;
  const Renderer = widgets?.getToolCall(part.toolName) ?? toolCallFallback;
  return <Renderer {...state} />;
});
