"use client";

import type { AgentClient, AgentClientOptions } from "@hitl-kit/client";
import type { ToolSet } from "@hitl-kit/protocol";
import { useContext } from "react";
import { AgentContext } from "./agent-context.js";
import type { AgentView } from "./agent-view.js";
import { useOwnedAgentClient } from "./use-agent-client.js";
import { useClientSelector } from "./use-client-selector.js";

/** Options of `useAgent`: a url (and `sessionId`, `fetch`, `headers`), or a client you created. */
export type UseAgentOptions = AgentClientOptions | { client: AgentClient };

const identity = (agent: AgentView) => agent;

/**
 * The session's live state and verbs. Give it options (or a `client`), or call it inside
 * an `<AgentProvider>`. With a selector, the component re-renders only when what the
 * selector returns changes. Give it your tool map (`useAgent<typeof tools>()`) to type
 * `pending`, `requests` and `respond(request, value)` from the tools' definitions.
 * @example
 * const agent = useAgent<typeof tools>({ url: "/api/agent", sessionId });
 * agent.send("make me a poster");
 * const first = agent.pending[0];
 * if (first?.request.toolName === "pick_template") agent.respond(first.request, { templateId: "calm" });
 * // inside <AgentProvider>:
 * const last = useAgent((a) => a.messages.at(-1));
 */
export function useAgent<Tools extends ToolSet = ToolSet>(options?: UseAgentOptions): AgentView<Tools>;
/**
 * What `selector` picks from the live state of the `<AgentProvider>`'s session; the
 * component re-renders only when that value changes (compared with `Object.is`). Type the
 * selector's argument with your tool map to type what it reads.
 * @example
 * const last = useAgent((a) => a.messages.at(-1));
 * const picks = useAgent((a: AgentView<typeof tools>) => a.pending.filter((p) => p.request.toolName === "pick_template"));
 */
export function useAgent<T, Tools extends ToolSet = ToolSet>(selector: (agent: AgentView<Tools>) => T): T;
/**
 * What `selector` picks from the live state of the session given by `options` (a url, or a
 * `client`); the component re-renders only when that value changes (compared with `Object.is`).
 * @example
 * const status = useAgent({ url: "/api/agent", sessionId }, (a) => a.status);
 */
export function useAgent<T, Tools extends ToolSet = ToolSet>(
  options: UseAgentOptions,
  selector: (agent: AgentView<Tools>) => T,
): T;
export function useAgent<T>(
  first?: UseAgentOptions | ((agent: AgentView) => T),
  second?: (agent: AgentView) => T,
): T | AgentView {
  const options = typeof first === "function" ? undefined : first;
  const selector = typeof first === "function" ? first : second;
  const given = options && "client" in options ? options.client : undefined;
  const owned = useOwnedAgentClient(options && !("client" in options) ? options : undefined);
  const provided = useContext(AgentContext);
  const client = given ?? owned ?? provided;
  if (!client) throw new Error("useAgent() needs a url or an <AgentProvider>: pass { url } or render it inside one.");
  return useClientSelector(client, (selector ?? identity) as (agent: AgentView) => T | AgentView);
}
