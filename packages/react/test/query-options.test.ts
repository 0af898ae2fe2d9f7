import { ApiError, createApiClient } from "@hitl-kit/client";
import { createAgentRuntime, createFetchHandler, memoryStore, scriptedModel } from "@hitl-kit/server";
import { MutationObserver, QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import {
  deleteSessionMutationOptions,
  sessionHistoryQueryOptions,
  sessionSnapshotQueryOptions,
} from "../src/query-options.js";

const runtime = createAgentRuntime({
  model: scriptedModel([{ text: "Hello." }]),
  tools: [],
  store: memoryStore(),
});
const handler = createFetchHandler(runtime, { identify: () => "tester" });
const api = createApiClient({
  url: "http://hitl.test/api/agent",
  fetch: (url, init) => handler(new Request(url, init)),
});
let queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });

afterEach(() => {
  queryClient.clear();
  queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
});

describe("the React Query helpers, on the ApiClient", () => {
  it("load the session history and a snapshot, and a delete drops both from the cache", async () => {
    const { sessionId } = await api.createSession();
    await api.sendMessage(sessionId, "hi");
    await runtime.idle();

    const history = await queryClient.fetchQuery(sessionHistoryQueryOptions(api));
    expect(history).toEqual([expect.objectContaining({ sessionId, title: "hi", status: "idle" })]);
    const snapshot = await queryClient.fetchQuery(sessionSnapshotQueryOptions(api, sessionId));
    expect(snapshot.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(sessionSnapshotQueryOptions(api, sessionId).queryKey).toEqual([
      "hitl-kit",
      "http://hitl.test/api/agent",
      "sessions",
      sessionId,
    ]);

    await new MutationObserver(queryClient, deleteSessionMutationOptions(api)).mutate(sessionId);
    expect(queryClient.getQueryData(sessionSnapshotQueryOptions(api, sessionId).queryKey)).toBeUndefined();
    // The history is invalidated (a mounted list refetches at once), and the session is gone from it.
    expect(queryClient.getQueryState(sessionHistoryQueryOptions(api).queryKey)?.isInvalidated).toBe(true);
    expect(await queryClient.fetchQuery(sessionHistoryQueryOptions(api))).toEqual([]);
  });

  it("fail with the ApiError's code and status", async () => {
    const failed = queryClient.fetchQuery(sessionSnapshotQueryOptions(api, "ses_missing"));
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({ code: "not_found", status: 404 });
  });
});
