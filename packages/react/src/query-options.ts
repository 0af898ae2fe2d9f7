import { parseSnapshot, type SessionSnapshot } from "@hitl-kit/protocol";
import { type DataTag, queryOptions, type UseQueryOptions } from "@tanstack/react-query";

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

async function getJson(endpoint: AgentEndpoint, path: string, signal: AbortSignal): Promise<unknown> {
  const response = await (endpoint.fetch ?? fetch)(`${endpoint.url}${path}`, {
    signal,
    ...(endpoint.headers ? { headers: endpoint.headers } : {}),
  });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new Error(message ?? `GET ${path} answered ${response.status}.`);
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
      parseSnapshot(await getJson(endpoint, `/sessions/${encodeURIComponent(sessionId)}`, signal)),
  });
}

/**
 * React Query options for the list of sessions, newest first: a sidebar's session history.
 * @example
 * const { data: sessions } = useQuery(sessionHistoryQueryOptions({ url: "/api/agent" }));
 */
export function sessionHistoryQueryOptions(endpoint: AgentEndpoint): TypedQueryOptions<SessionListItem[], HistoryKey> {
  return queryOptions({
    queryKey: ["hitl-kit", endpoint.url, "sessions"] as const,
    queryFn: async ({ signal }) =>
      ((await getJson(endpoint, "/sessions", signal)) as { sessions: SessionListItem[] }).sessions,
  });
}
