import { emptySnapshot, reduceSession } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient } from "../src/index.js";
import { follow, pickCall, startAgentServer, waitFor } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startAgentServer>>;
let server: Server | undefined;
let client: AgentClient | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

describe("a long session's history", () => {
  it("hydrates with the newest messages and loads earlier pages until the first, answered requests included", async () => {
    // Each turn: the person's message, then a picker answered at once, then a reply: 3 messages.
    server = await startAgentServer(({ lastResults }) =>
      lastResults.length > 0 ? { text: "Noted." } : { text: "Pick one.", toolCalls: [pickCall] },
    );
    const { runtime } = server;
    const { sessionId } = await runtime.createSession({ owner: "tester" });
    for (let turn = 0; turn < 25; turn++) {
      await runtime.sendMessage(sessionId, `turn ${turn}`);
      await runtime.idle();
      const [request] = (await runtime.getSnapshot(sessionId)).pending;
      await runtime.respond(sessionId, [
        { requestId: request!.requestId, action: "accept", value: { templateId: "calm" } },
      ]);
      await runtime.idle();
    }
    const fold = (await runtime.readEvents(sessionId, 0)).reduce(reduceSession, emptySnapshot(sessionId));
    expect(fold.messages).toHaveLength(75);

    client = follow(createAgentClient({ url: server.url, fetch: server.fetch, sessionId }));
    await client.ready;
    expect(client.getSnapshot().messages).toEqual(fold.messages.slice(-50));
    expect(client.getSnapshot().session.before).toBeDefined();

    await client.loadEarlier(20);
    expect(client.getSnapshot().messages).toEqual(fold.messages.slice(-70));
    const result = await client.loadEarlier(20);
    expect(result.ok).toBe(true);
    const state = client.getSnapshot();
    expect(state.messages).toEqual(fold.messages);
    expect(state.session.before).toBeUndefined();
    const requestIds = fold.resolved.map(({ request }) => request.requestId);
    expect(requestIds).toHaveLength(25);
    expect(requestIds.every((id) => state.requests[id]?.status === "resolved")).toBe(true);
    expect(await client.loadEarlier()).toMatchObject({ ok: true });
    expect(
      server.wire.filter((line) => line.startsWith("GET /api/agent/sessions/") && !line.endsWith("/events")),
    ).toHaveLength(3);

    // New events still apply on top of the whole history.
    await client.send("one more");
    await waitFor(client, (s) => s.status === "waiting");
    expect(client.getSnapshot().messages.length).toBe(77);
  });
});
