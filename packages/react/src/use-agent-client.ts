import { type AgentClient, type AgentClientOptions, createAgentClient } from "@hitl-kit/client";
import { useEffect, useState } from "react";

const closed = new WeakSet<AgentClient>();

/**
 * Owns a client for the component's lifetime: created on first render, closed on unmount,
 * re-created when `url` or `sessionId` change. Under StrictMode's unmount-and-remount in
 * development, a closed client is replaced by a fresh one for the same session.
 */
export function useOwnedAgentClient(options: AgentClientOptions | undefined): AgentClient | undefined {
  const key = options ? `${options.url ?? ""}\u0000${options.sessionId ?? ""}` : undefined;
  const [owned, setOwned] = useState(() => (options ? { key, client: createAgentClient(options) } : undefined));
  let current = owned;
  if (options && current?.key !== key) {
    current = { key, client: createAgentClient(options) };
    setOwned(current);
  }
  const client = current?.client;
  // The client depends on the key only; other options are read when it is created.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    if (!client || !options) return;
    if (closed.has(client)) {
      setOwned({ key, client: createAgentClient(options) });
      return;
    }
    return () => {
      closed.add(client);
      client.close();
    };
  }, [client, key]);
  return client;
}
