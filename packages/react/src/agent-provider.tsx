"use client";

import type { AgentClient, AgentClientOptions } from "@hitl-kit/client";
import type { ReactNode } from "react";
import { AgentContext } from "./agent-context.js";
import { useOwnedAgentClient } from "./use-agent-client.js";

/** Props of {@link AgentProvider}: client options (it owns the client), or a `client` you own. */
export type AgentProviderProps = (AgentClientOptions | { client: AgentClient }) & { children?: ReactNode };

/**
 * Shares one session's client with every `useAgent`, `<ParkedRequests>` and widget below.
 * @example
 * <AgentProvider url="/api/agent" sessionId={sessionId}>
 *   <Chat />
 * </AgentProvider>
 */
export function AgentProvider({ children, ...options }: AgentProviderProps) {
  const given = "client" in options ? options.client : undefined;
  const owned = useOwnedAgentClient(given ? undefined : (options as AgentClientOptions));
  return <AgentContext.Provider value={given ?? owned}>{children}</AgentContext.Provider>;
}
