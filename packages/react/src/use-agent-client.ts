"use client";

import {
  type AgentClient,
  type AgentClientOptions,
  type ApiClientOptions,
  createAgentClient,
  type HeaderValues,
} from "@hitl-kit/client";
import { useEffect, useRef, useState } from "react";

/**
 * Owns a client for the component's lifetime: created on first render, re-created when
 * `url` or `sessionId` change — unless the new `sessionId` is the one the client itself
 * created on its first `send()`. Its `headers` and `fetch` are the latest render's, read at
 * each request (a token kept in state, refreshed, goes with the next request). Creating a
 * client does no I/O: its stream follows its subscribers (the hooks that read it), so
 * StrictMode's double render and effects and server rendering open nothing. Unmounting (or
 * moving to another session) disposes of it: its stream closes and it sends nothing more, so
 * no resend goes out with the next account's `headers` after a sign-out.
 */
export function useOwnedAgentClient(options: AgentClientOptions | undefined): AgentClient | undefined {
  const latest = useRef(options as ApiClientOptions | undefined);
  latest.current = options as ApiClientOptions | undefined;
  // (A client with its own `api` or `transport` reads neither.)
  const create = (options: AgentClientOptions) => ({
    options,
    client: createAgentClient({
      ...options,
      headers: () => {
        const headers = latest.current?.headers;
        return (typeof headers === "function" ? headers() : headers) as HeaderValues;
      },
      fetch: (input: string, init?: RequestInit) => (latest.current?.fetch ?? fetch)(input, init),
    } as AgentClientOptions),
  });
  const [owned, setOwned] = useState(() => options && create(options));
  const client = !options ? undefined : owned && serves(owned, options) ? owned.client : undefined;
  const next = options && !client ? create(options) : undefined;
  if (next) setOwned(next);
  useDisposeOnUnmount(client ?? next?.client);
  return client ?? next?.client;
}

/**
 * Disposes of the client once its component unmounts or moves on to another client; not on
 * StrictMode's rehearsal, whose unmount and mount come in one go, before the microtask.
 */
function useDisposeOnUnmount(client: AgentClient | undefined): void {
  const leaving = useRef<AgentClient | undefined>(undefined);
  useEffect(() => {
    if (!client) return;
    if (leaving.current === client) leaving.current = undefined;
    return () => {
      leaving.current = client;
      queueMicrotask(() => {
        if (leaving.current === client) client.dispose();
      });
    };
  }, [client]);
}

function serves(owned: { options: AgentClientOptions; client: AgentClient }, options: AgentClientOptions): boolean {
  if (owned.options.url !== options.url || owned.options.api !== options.api) return false;
  return (
    owned.options.sessionId === options.sessionId ||
    (options.sessionId !== undefined && owned.client.getSnapshot().sessionId === options.sessionId)
  );
}
