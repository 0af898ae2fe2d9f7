"use client";

import type { AgentClient } from "@hitl-kit/client";
import type { AnyToolDefinition, ToolAnswerOf, ToolInputOf } from "@hitl-kit/protocol";
import { useMemo } from "react";
import { useClientSelector } from "./use-client-selector.js";
import { useRequiredClient } from "./use-required-client.js";
import type { RequestVerbs, WidgetProps } from "./widget-props.js";

/** Options of {@link useParkedRequest}. */
export interface UseParkedRequestOptions<Tool extends AnyToolDefinition | undefined = undefined> {
  /** The client, or the `useAgent()` view (which carries it); from `<AgentProvider>` when omitted. */
  agent?: AgentClient | { client: AgentClient } | undefined;
  /**
   * The tool the request belongs to: types `request.input`, `respond`'s value and the
   * resolution from its definition. A request of another tool throws, naming both. Only
   * its name is used at run time, so the name does too, with the tool's type given as the
   * type argument (`useParkedRequest<typeof pickPaper>(id, { tool: "pick_paper" })`): a
   * browser bundle then needs no definition and no schema library, and the definition can
   * be imported with `import type`.
   */
  tool?: Tool | (Tool extends AnyToolDefinition ? Tool["name"] : never);
}

/** What {@link useParkedRequest} returns for a request of `Tool`: its state (a union on `status`) and its verbs. */
export type ParkedRequestView<Tool extends AnyToolDefinition | undefined = undefined> = Tool extends AnyToolDefinition
  ? WidgetProps<ToolInputOf<Tool>, ToolAnswerOf<Tool>, Tool["name"]>
  : WidgetProps;

/**
 * One request's live state and its verbs, for people who draw their own UI: the state is
 * a union on `status` (read `resolution` once settled, `sent` while submitting, `error`
 * after a refused answer), and `respond`, `decline`, `cancel` are bound to the request and
 * keep their identity. It re-renders only when this request changes; it is `undefined`
 * while the client does not know the request (not hydrated yet, or another session's).
 * Works inside `<AgentProvider>` or with `{ agent }`.
 * @example
 * function TemplateChoice({ requestId }: { requestId: string }) {
 *   const parked = useParkedRequest(requestId, { tool: pickTemplate });
 *   if (!parked) return null;
 *   if (parked.status === "resolved") return <p>Chose {parked.resolution.value.templateId}</p>;
 *   return (
 *     <div data-state={parked.status}>
 *       {parked.request.input.templates.map((t) => (
 *         <button key={t.id} disabled={parked.status === "submitting"} onClick={() => parked.respond({ templateId: t.id })}>
 *           {t.name}
 *         </button>
 *       ))}
 *       {parked.status === "error" ? <p role="alert">{parked.error.message}</p> : null}
 *     </div>
 *   );
 * }
 */
export function useParkedRequest<Tool extends AnyToolDefinition | undefined = undefined>(
  requestId: string,
  options: UseParkedRequestOptions<Tool> = {},
): ParkedRequestView<Tool> | undefined {
  const client = useRequiredClient(options.agent, "useParkedRequest()");
  const state = useClientSelector(client, (view) => view.requests[requestId]);
  const verbs = useMemo(() => requestVerbs(client, requestId), [client, requestId]);
  const view = useMemo(() => (state ? { ...state, ...verbs } : undefined), [state, verbs]);
  const expected = typeof options.tool === "string" ? options.tool : options.tool?.name;
  if (state && expected !== undefined && state.request.toolName !== expected) {
    throw new TypeError(
      `useParkedRequest("${requestId}") was given the tool "${expected}", but the request belongs to "${state.request.toolName}".`,
    );
  }
  return view as ParkedRequestView<Tool> | undefined;
}

/** The verbs bound to one request of a client. */
export function requestVerbs(client: AgentClient, requestId: string): RequestVerbs {
  return {
    respond: (value) => void client.respond(requestId, value),
    decline: (reason) => void client.decline(requestId, reason),
    cancel: () => void client.cancel(requestId),
  };
}
