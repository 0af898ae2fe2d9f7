"use client";

import type { AgentClient, ClientState } from "@hitl-kit/client";
import { useCallback, useRef, useSyncExternalStore } from "react";
import { type AgentView, agentView } from "./agent-view.js";

/**
 * Subscribes to a client and returns what `selector` picks from its view. The component
 * re-renders only when the picked value changes (`Object.is`), so a selector that picks
 * one message skips the deltas of every other message.
 */
export function useClientSelector<T>(client: AgentClient, selector: (agent: AgentView) => T): T {
  const cache = useRef<{ state: unknown; selector: unknown; value: T } | undefined>(undefined);
  const select = useCallback(
    (state: ClientState): T => {
      const cached = cache.current;
      if (cached && cached.state === state && cached.selector === selector) return cached.value;
      const value = selector(agentView(client, state));
      // Keep the old value when it is equal, so React sees no change.
      const kept = cached && Object.is(cached.value, value) ? cached.value : value;
      cache.current = { state, selector, value: kept };
      return kept;
    },
    [client, selector],
  );
  const getSelected = useCallback(() => select(client.getSnapshot()), [client, select]);
  // Hydrating, the state a server render showed (see `AgentClient.getServerSnapshot`).
  const getServerSelected = useCallback(() => select(client.getServerSnapshot()), [client, select]);
  return useSyncExternalStore(client.subscribe, getSelected, getServerSelected);
}
