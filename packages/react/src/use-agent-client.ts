"use client";

import { type AgentClient, type AgentClientOptions, createAgentClient } from "@hitl-kit/client";
import { useState } from "react";

/**
 * Owns a client for the component's lifetime: created on first render, re-created when
 * `url` or `sessionId` change — unless the new `sessionId` is the one the client itself
 * created on its first `send()`. Creating a client does no I/O: its stream follows its
 * subscribers (the hooks that read it), so StrictMode's double render and effects and
 * server rendering open nothing, and unmounting stops the stream.
 */
export function useOwnedAgentClient(options: AgentClientOptions | undefined): AgentClient | undefined {
  const [owned, setOwned] = useState(() => (options ? { options, client: createAgentClient(options) } : undefined));
  if (!options) return undefined;
  if (owned && serves(owned, options)) return owned.client;
  const next = { options, client: createAgentClient(options) };
  setOwned(next);
  return next.client;
}

function serves(owned: { options: AgentClientOptions; client: AgentClient }, options: AgentClientOptions): boolean {
  if (owned.options.url !== options.url || owned.options.api !== options.api) return false;
  return (
    owned.options.sessionId === options.sessionId ||
    (options.sessionId !== undefined && owned.client.getSnapshot().sessionId === options.sessionId)
  );
}
