/**
 * @hitl-kit/react/query: the session list and a session's snapshot as TanStack Query
 * options, keyed by the server's URL, and deleting a session as mutation options. Needs
 * `@tanstack/react-query` 5.
 * @packageDocumentation
 */
import type { ApiClient, SessionSummary } from "@hitl-kit/client";
import type { SessionSnapshot } from "@hitl-kit/protocol";
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

/**
 * The query key of a session's snapshot: `["hitl-kit", api.url, "sessions", sessionId]`.
 * It starts with the {@link SessionHistoryQueryKey}, so invalidating that key refreshes both.
 */
export type SessionSnapshotQueryKey = readonly ["hitl-kit", string, "sessions", string];

/** The query key of the caller's session list: `["hitl-kit", api.url, "sessions"]`. */
export type SessionHistoryQueryKey = readonly ["hitl-kit", string, "sessions"];

/**
 * React Query options for a session's snapshot — to show a session's history (its
 * transcript as of now) without opening a live stream. The live session belongs to
 * `useAgent`, never to the query cache. Failures are `@hitl-kit/client`'s `ApiError`s.
 * @example
 * const api = createApiClient({ url: "/api/agent" }); // from @hitl-kit/client, once per app
 * const { data } = useQuery(sessionSnapshotQueryOptions(api, sessionId));
 */
export function sessionSnapshotQueryOptions(
  api: ApiClient,
  sessionId: string,
): TypedQueryOptions<SessionSnapshot, SessionSnapshotQueryKey> {
  return queryOptions({
    queryKey: ["hitl-kit", api.url, "sessions", sessionId] as const,
    queryFn: ({ signal }) => api.getSnapshot(sessionId, { signal }),
  });
}

/**
 * React Query options for the caller's sessions, newest first: a sidebar's session history.
 * It holds the newest `limit` (default 50, at most 100); `api.listSessions({ cursor })` pages further.
 * @example
 * const { data: sessions } = useQuery(sessionHistoryQueryOptions(api));
 */
export function sessionHistoryQueryOptions(
  api: ApiClient,
  { limit = 50 }: { limit?: number } = {},
): TypedQueryOptions<SessionSummary[], SessionHistoryQueryKey> {
  return queryOptions({
    queryKey: ["hitl-kit", api.url, "sessions"] as const,
    queryFn: async ({ signal }) => (await api.listSessions({ limit, signal })).sessions,
  });
}

/**
 * React Query mutation options that delete a session (`DELETE /sessions/:id`; its open
 * requests are cancelled first): on success the session's snapshot leaves the cache and
 * the session history is refetched. The variable is the session id.
 * @example
 * const remove = useMutation(deleteSessionMutationOptions(api));
 * remove.mutate(sessionId);
 */
export function deleteSessionMutationOptions(api: ApiClient): UseMutationOptions<void, Error, string> {
  return mutationOptions({
    mutationKey: ["hitl-kit", api.url, "delete-session"] as const,
    mutationFn: (sessionId: string) => api.deleteSession(sessionId),
    onSuccess: async (_data, sessionId, _result, { client }) => {
      client.removeQueries({ queryKey: sessionSnapshotQueryOptions(api, sessionId).queryKey });
      await client.invalidateQueries({ queryKey: sessionHistoryQueryOptions(api).queryKey, exact: true });
    },
  });
}
