import type { ApiClient } from "@hitl-kit/client";
import type { AgentView } from "@hitl-kit/react";
import { sessionHistoryQueryOptions } from "@hitl-kit/react/query";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";

/** What {@link useSessionHistoryRefresh} reads of the session: all of it is in a `useAgent()` view. */
export type SessionActivity = Pick<AgentView, "hydrated" | "session" | "turnId" | "outbox">;

/**
 * What the session list shows of the current session changes with its server status
 * (idle, running, waiting), whether requests wait for the person (a running tool's question
 * too) and its turns; a message the server accepted names the session. Text deltas change
 * none of these.
 */
function activityKey(agent: SessionActivity): string {
  const accepted = agent.outbox.map((message) => message.turnId ?? "").join(",");
  return [agent.session.status, agent.session.pending.length > 0, agent.turnId ?? "", accepted].join("|");
}

/**
 * Keeps the sidebar's session list (`sessionHistoryQueryOptions`) in step with the
 * current session: it invalidates the list once the session is loaded (a new one joins
 * the list), then when its status changes, a turn starts or a message is accepted, and
 * never for text streaming in.
 * @example
 * const agent = useAgent();
 * useSessionHistoryRefresh(agentApi, agent);
 */
export function useSessionHistoryRefresh(api: ApiClient, agent: SessionActivity): void {
  const queryClient = useQueryClient();
  const key = agent.hydrated ? activityKey(agent) : undefined;
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (key === undefined || key === seen.current) return;
    seen.current = key;
    void queryClient.invalidateQueries({ queryKey: sessionHistoryQueryOptions(api).queryKey });
  }, [key, queryClient, api]);
}
