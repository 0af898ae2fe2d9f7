import { describe, expect, it } from "vitest";
import { everyEventType } from "../../protocol/test/fixtures.js";
import { createAgentClient, replayTransport } from "../src/index.js";
import { follow, textOf } from "./helpers.js";

describe("replayTransport", () => {
  it("drives a client step by step from a recorded stream", async () => {
    const replay = replayTransport(everyEventType);
    const client = follow(createAgentClient({ transport: replay, sessionId: replay.sessionId }));
    await client.ready;
    expect(client.getSnapshot()).toMatchObject({ sessionId: "s_1", status: "idle", lastSeq: 0, connection: "open" });

    expect(replay.step()?.type).toBe("session.created");
    replay.stepTo(9);
    expect(client.getSnapshot()).toMatchObject({ status: "streaming", lastSeq: 9 });
    expect(textOf(client.getSnapshot())).toBe("Pick a template.");

    replay.stepTo(12);
    expect(client.getSnapshot().status).toBe("waiting");
    expect(client.getSnapshot().pending.map((request) => request.status)).toEqual(["pending"]);

    await client.respond("r_1", { templateId: "b" });
    expect(replay.commands).toEqual([
      {
        sessionId: "s_1",
        type: "responses",
        responses: [{ requestId: "r_1", action: "accept", value: { templateId: "b" } }],
      },
    ]);
    expect(client.getSnapshot().requests.r_1?.status).toBe("submitting");

    replay.stepTo(13);
    expect(client.getSnapshot().requests.r_1?.status).toBe("resolved");
  });

  it("plays a whole recording at once, before or after the client attaches", async () => {
    const before = replayTransport(everyEventType, { playedTo: 24 });
    const attached = follow(createAgentClient({ transport: before, sessionId: "s_1" }));
    await attached.ready;
    expect(attached.getSnapshot()).toMatchObject({ lastSeq: 24, status: "idle" });

    const after = replayTransport(everyEventType);
    const client = follow(createAgentClient({ transport: after, sessionId: after.sessionId }));
    await client.ready;
    after.playAll();
    expect(after.done).toBe(true);
    expect(client.getSnapshot().messages).toEqual(attached.getSnapshot().messages);
    expect(client.getSnapshot().requests.r_1?.status).toBe("resolved");
  });

  it("records commands and answers them like the server", async () => {
    const replay = replayTransport(everyEventType.slice(0, 1));
    const client = createAgentClient({ transport: replay });
    expect(await client.send("hello")).toMatchObject({ ok: true, status: 202, body: { turnId: "turn_replay_1" } });
    expect(client.getSnapshot().status).toBe("submitting");
    expect(await client.cancelTurn()).toMatchObject({ ok: true, status: 202 });
    expect(replay.commands.map((command) => command.type)).toEqual(["message", "cancel"]);
  });
});
