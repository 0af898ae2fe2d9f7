import { ProtocolError } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime, memoryStore, scriptedModel } from "../src/index.js";

let runtime: AgentRuntime | undefined;
afterEach(async () => {
  await runtime?.close({ timeoutMs: 0 });
  runtime = undefined;
});

describe("runtime.getSnapshot's page", () => {
  it("takes a snapshot's before as it is (a string), pages back to the first message, and refuses one no snapshot gives", async () => {
    runtime = createAgentRuntime({ model: scriptedModel(() => ({ text: "Noted." })), store: memoryStore() });
    const { sessionId } = await runtime.createSession({ owner: "ada" });
    for (const text of ["one", "two", "three"]) {
      await runtime.sendMessage(sessionId, text);
      await runtime.idle();
    }
    const texts: string[] = [];
    let page = await runtime.getSnapshot(sessionId, { limit: 2 });
    for (;;) {
      texts.unshift(...page.messages.map((message) => (message.parts[0] as { text: string }).text));
      if (page.before === undefined) break;
      page = await runtime.getSnapshot(sessionId, { before: page.before, limit: 2 });
    }
    expect(texts).toEqual(["one", "Noted.", "two", "Noted.", "three", "Noted."]);
    await expect(runtime.getSnapshot(sessionId, { before: "soon" })).rejects.toThrow(ProtocolError);
    await expect(runtime.getSnapshot(sessionId, { before: "soon" })).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("sessionTitle", () => {
  it("lists a session under the title it gives, asked for each message until it gives one, or under none", async () => {
    const titled = (sessionTitle: (message: string) => string | undefined) =>
      createAgentRuntime({ model: scriptedModel(() => ({ text: "Noted." })), store: memoryStore(), sessionTitle });
    runtime = titled((message) => (message.startsWith("about ") ? `Chat ${message.slice(6)}` : undefined));
    const { sessionId } = await runtime.createSession({ owner: "ada" });
    for (const text of ["my IBAN is DE89…", "about refunds", "about boats"]) {
      await runtime.sendMessage(sessionId, text);
      await runtime.idle();
    }
    expect((await runtime.listSessions({ owner: "ada" })).map((session) => session.title)).toEqual(["Chat refunds"]);
    await runtime.close({ timeoutMs: 0 });

    runtime = titled(() => undefined);
    const untitled = await runtime.createSession({ owner: "ada" });
    await runtime.sendMessage(untitled.sessionId, "my IBAN is DE89…");
    await runtime.idle();
    expect((await runtime.listSessions({ owner: "ada" }))[0]).not.toHaveProperty("title");
  });
});
