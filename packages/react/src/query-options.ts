import { parseSnapshot, type SessionSnapshot } from "@hitl-kit/protocol";
import {
  type DataTag,
  mutationOptions,
  queryOptions,
  type UseMutationOptions,
  type UseQueryOptions,
} from "@tanstack/react-query";

/** Query options whose key carries the data's type, as `queryOptions()` makes them. */
export type TypedQueryOptions<Data, Key extends readonly unknown[]> = UseQueryOptions<Data, Error, Data, Key> & {
  queryKey: DataTag<Key, Data, Error>;
};

type SnapshotKey = readonly ["hitl-kit", string, "sessions", string];
type HistoryKey = readonly ["hitl-kit", string, "sessions"];

/** Where the protocol lives, and how to reach it. */
export interface AgentEndpoint {
  /** The protocol base, such as `/api/agent`. */
  url: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/** One session in the list `GET /sessions` answers. */
export interface SessionListItem {
  sessionId: string;
  createdAt: string;
  title?: string;
  status: string;
  lastSeq: number;
}

async function requestJson(endpoint: AgentEndpoint, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await (endpoint.fetch ?? fetch)(`${endpoint.url}${path}`, {
    ...init,
    ...(endpoint.headers ? { headers: endpoint.headers } : {}),
  });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new Error(message ?? `${init.method ?? "GET"} ${path} answered ${response.status}.`);
  }
  return body;
}

/**
 * React Query options for a session's snapshot — to show a session's history (its
 * transcript as of now) without opening a live stream. The live session belongs to
 * `useAgent`, never to the query cache.
 * @example
 * const { data } = useQuery(sessionSnapshotQueryOptions({ url: "/api/agent" }, sessionId));
 */
export function sessionSnapshotQueryOptions(
  endpoint: AgentEndpoint,
  sessionId: string,
): TypedQueryOptions<SessionSnapshot, SnapshotKey> {
  return queryOptions({
    queryKey: ["hitl-kit", endpoint.url, "sessions", sessionId] as const,
    queryFn: async ({ signal }) =>
      parseSnapshot(await requestJson(endpoint, `/sessions/${encodeURIComponent(sessionId)}`, { signal })),
  });
}

/**
 * React Query options for the caller's sessions, newest first: a sidebar's session history.
 * It holds the newest `limit` (default 50, at most 100); `GET /sessions?cursor=` pages further.
 * @example
 * const { data: sessions } = useQuery(sessionHistoryQueryOptions({ url: "/api/agent" }));
 */
export function sessionHistoryQueryOptions(
  endpoint: AgentEndpoint,
  { limit = 50 }: { limit?: number } = {},
): TypedQueryOptions<SessionListItem[], HistoryKey> {
  return queryOptions({
    queryKey: ["hitl-kit", endpoint.url, "sessions"] as const,
    queryFn: async ({ signal }) =>
      ((await requestJson(endpoint, `/sessions?limit=${limit}`, { signal })) as { sessions: SessionListItem[] })
        .sessions,
  });
}

/**
 * React Query mutation options that delete a session (`DELETE /sessions/:id`; its open
 * requests are cancelled first): on success the session's snapshot leaves the cache and
 * the session history is refetched. The variable is the session id.
 * @example
 * const remove = useMutation(deleteSessionMutationOptions({ url: "/api/agent" }));
 * remove.mutate(sessionId);
 */
export function deleteSessionMutationOptions(endpoint: AgentEndpoint): UseMutationOptions<void, Error, string> {
  return mutationOptions({
    mutationKey: ["hitl-kit", endpoint.url, "delete-session"] as const,
    mutationFn: async (sessionId: string) => {
      await requestJson(endpoint, `/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE" });
    },
    onSuccess: async (_data, sessionId, _result, { client }) => {
      client.removeQueries({ queryKey: sessionSnapshotQueryOptions(endpoint, sessionId).queryKey });
      await client.invalidateQueries({ queryKey: sessionHistoryQueryOptions(endpoint).queryKey, exact: true });
    },
  });
}
