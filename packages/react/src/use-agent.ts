import type { AgentClient, AgentClientOptions } from "@hitl-kit/client";
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
 * selector returns changes.
 * @example
 * const agent = useAgent({ url: "/api/agent", sessionId });
 * agent.send("make me a poster");
 * // inside <AgentProvider>:
 * const last = useAgent((a) => a.messages.at(-1));
 */
export function useAgent(options?: UseAgentOptions): AgentView;
export function useAgent<T>(selector: (agent: AgentView) => T): T;
export function useAgent<T>(options: UseAgentOptions, selector: (agent: AgentView) => T): T;
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
