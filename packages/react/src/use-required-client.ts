"use client";

import type { AgentClient } from "@hitl-kit/client";
import { useContext } from "react";
import { AgentContext } from "./agent-context.js";

/** The client from the `agent` option or prop, else from `<AgentProvider>`; `caller` names the hook or component in the error. */
export function useRequiredClient(
  agent: AgentClient | { client: AgentClient } | undefined,
  caller = "This component",
): AgentClient {
  const provided = useContext(AgentContext);
  const client = agent ? ("client" in agent ? agent.client : agent) : provided;
  if (!client) {
    throw new Error(`${caller} needs a client: pass agent={useAgent(...)} or render it inside an <AgentProvider>.`);
  }
  return client;
}
