import { PROTOCOL_VERSION } from "@hitl-kit/protocol";
import { describe, expect, it } from "vitest";
import { createAgentClient, createApiClient, plainErrorMessage } from "../src/index.js";
import { closedAfterEach, follow, startAgentServer, textOf, waitFor } from "./helpers.js";

const open = closedAfterEach();
const fast = { initialDelayMs: 5, maxDelayMs: 20 };

/** `response` with its `hitl-protocol` header set to `version`, or taken out (`null`), as a newer server or a proxy would answer. */
function speaking(response: Response, version: string | null): Response {
  const headers = new Headers(response.headers);
  if (version === null) headers.delete("hitl-protocol");
  else headers.set("hitl-protocol", version);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

describe("a server of a newer protocol version", () => {
  it("stops the event stream with client_outdated, saying to reload, and does not reconnect", async () => {
    const server = open.add(await startAgentServer([{ text: "hi" }]));
    // A rolling deploy: the page loaded its session from an old instance, and its stream reaches a new one.
    let streams = 0;
    const fetch = async (input: string, init?: RequestInit) => {
      const response = await server.fetch(input, init);
      if (!input.endsWith("/events")) return response;
      streams++;
      return speaking(response, String(PROTOCOL_VERSION + 1));
    };
    const client = open.add(follow(createAgentClient({ url: server.url, fetch, reconnect: fast })));
    await client.createSession();
    const failed = await waitFor(client, (s) => s.connection === "closed");
    expect(failed).toMatchObject({
      status: "error",
      error: { code: "client_outdated", source: "connection", details: { serverVersion: PROTOCOL_VERSION + 1 } },
    });
    expect(failed.error!.message).toMatch(/page is older than the server.*reload it/);
    expect(plainErrorMessage(failed.error!)).toBe("This page is out of date. Reload it to go on.");
    expect(streams).toBe(1);
    expect(server.wire.filter((line) => line.endsWith("/events"))).toHaveLength(1);
  });

  it("fails a JSON answer with client_outdated, sent once and not retried", async () => {
    const server = open.add(await startAgentServer([{ text: "hi" }]));
    const { sessionId } = await createApiClient({ url: server.url }).createSession();
    const fetch = async (input: string, init?: RequestInit) =>
      speaking(await server.fetch(input, init), String(PROTOCOL_VERSION + 1));
    const api = createApiClient({ url: server.url, fetch, retry: { initialDelayMs: 1 } });
    const before = server.wire.length;
    await expect(api.getSnapshot(sessionId)).rejects.toMatchObject({ code: "client_outdated", status: 0 });
    await expect(api.sendMessage(sessionId, "hello")).rejects.toMatchObject({ code: "client_outdated" });
    expect(server.wire.slice(before)).toEqual([
      `GET /api/agent/sessions/${sessionId}`,
      `POST /api/agent/sessions/${sessionId}/messages`,
    ]);
  });
});

describe("a server that says no version, or one not newer", () => {
  it.each([
    ["no header (an older server, or a proxy that strips it)", null],
    ["an older version", "1"],
    ["the same version", String(PROTOCOL_VERSION)],
  ])("goes on as before with %s", async (_, version) => {
    const server = open.add(await startAgentServer([{ text: "still here" }]));
    const fetch = async (input: string, init?: RequestInit) => speaking(await server.fetch(input, init), version);
    const client = open.add(follow(createAgentClient({ url: server.url, fetch, reconnect: fast })));
    await client.ready;
    await client.send("hello");
    const done = await waitFor(client, (s) => s.session.status === "idle" && s.messages.length === 2);
    expect(textOf(done)).toBe("still here");
    expect([done.connection, done.error]).toEqual(["open", undefined]);
  });
});
