import type { Chat } from "@ai-sdk/react";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyHitlSettlement, hitlChatTransport, memorySessionMap } from "../src/index.js";
import { type Reply, setups, startApp, toolParts } from "./setups.js";

const publish = { name: "publish_poster", input: { title: "Spring" } };
const pick = { name: "pick_template", input: { templates: ["a", "b"] } };

describe.each(setups)("turns through the transport ($name)", (setup) => {
  let app: Awaited<ReturnType<typeof startApp>>;
  afterEach(async () => {
    await app?.close();
  });

  async function start(replies: Reply[]) {
    app = await startApp(setup, replies);
    return app;
  }

  it("an approval granted runs the tool and shows its output", async () => {
    await start([{ text: "Publishing.", toolCalls: [publish] }, { text: "Published." }]);
    const chat = app.chat();
    await chat.sendMessage({ text: "publish my poster" });
    const [part] = toolParts(chat.lastMessage);
    await chat.addToolApprovalResponse({
      id: part!.state === "approval-requested" ? part!.approval.id : "",
      approved: true,
    });
    await vi.waitFor(() => expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ text: "Published." }));
    await vi.waitFor(() => expect(chat.status).toBe("ready"));
    expect(toolParts(chat.lastMessage)).toMatchObject([
      { state: "output-available", output: { url: "https://posters.example/Spring" }, approval: { approved: true } },
    ]);
    expect(app.log.refused).toEqual([]);
  });

  it("an answer the server refuses puts the request back, answerable, with the server's reason", async () => {
    await start([{ text: "Pick one.", toolCalls: [pick] }, { text: "Picked." }]);
    const sessions = memorySessionMap();
    const chat = app.chat({ transport: app.transport(sessions) });
    await chat.sendMessage({ text: "make me a poster" });
    const [part] = toolParts(chat.lastMessage);
    await chat.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "" } });
    await vi.waitFor(() => expect(chat.status).toBe("error"));
    expect(chat.error?.message).toMatch(/does not fit the answer schema of pick_template \(templateId: /);
    await vi.waitFor(() =>
      expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "input-available", input: pick.input }]),
    );
    expect(toolParts(chat.lastMessage)[0]).not.toHaveProperty("output", expect.anything());
    // The same answer refused again is not put back once more: an onToolCall that gives it would loop.
    await chat.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "" } });
    await vi.waitFor(() => expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "output-available" }]));
    await vi.waitFor(() => expect(chat.status).toBe("error"));

    await chat.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() => expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ text: "Picked." }));
    await vi.waitFor(() => expect(chat.status).toBe("ready"));
    const sessionId = (await app.transport(sessions).sessionIdOf(chat.id))!;
    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "ok" }]);
    expect(app.log.refused).toEqual([]);
  });

  it("a message sent while a request is open cancels it with one result, the earlier reply shows it, and the new reply streams", async () => {
    await start([{ text: "Pick one.", toolCalls: [pick] }, { text: "Sure, something else." }]);
    const sessions = memorySessionMap();
    const settlements: unknown[] = [];
    const chat: Chat<UIMessage> = app.chat({
      transport: app.transport(sessions),
      onData: (part) => {
        if (part.type === "data-hitl-settled") settlements.push(part);
        chat.messages = applyHitlSettlement(chat.messages, part);
      },
    });
    await chat.sendMessage({ text: "make me a poster" });
    await chat.sendMessage({ text: "actually, never mind" });
    expect(chat.status).toBe("ready");
    expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Sure, something else." });
    const sessionId = (await app.transport(sessions).sessionIdOf(chat.id))!;
    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "cancelled" }]);
    expect(app.log.refused).toEqual([]);

    // The picker of the first reply shows what the server did, as a reload would show it.
    expect(settlements).toMatchObject([
      { type: "data-hitl-settled", data: { resolution: { action: "cancel" }, result: { outcome: "cancelled" } } },
    ]);
    const first = chat.messages[1]!;
    expect(toolParts(first)).toMatchObject([
      { state: "output-error", errorText: "The person sent a new message instead of answering." },
    ]);
    const loaded = await app.transport(sessions).loadMessages(chat.id);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(first.parts)).toEqual(plain(loaded[1]!.parts));
    // Nothing else is told: a part that is not a settlement leaves the messages as they are.
    expect(applyHitlSettlement(chat.messages, { type: "data-other", data: {} })).toBe(chat.messages);
  });

  it("an approval left open by a new message shows cancelled in its reply, as a reload shows it", async () => {
    await start([{ text: "Publishing.", toolCalls: [publish] }, { text: "Sure, something else." }]);
    const sessions = memorySessionMap();
    const chat: Chat<UIMessage> = app.chat({
      transport: app.transport(sessions),
      onData: (part) => {
        chat.messages = applyHitlSettlement(chat.messages, part);
      },
    });
    await chat.sendMessage({ text: "publish my poster" });
    expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "approval-requested" }]);
    await chat.sendMessage({ text: "actually, never mind" });
    const first = chat.messages[1]!;
    expect(toolParts(first)).toMatchObject([{ state: "output-error" }]);
    // Nobody approved or refused it: an `approval` without `approved` would read as still open (assistant-ui offers it again).
    expect(toolParts(first)[0]).not.toHaveProperty("approval");
    const loaded = await app.transport(sessions).loadMessages(chat.id);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(first.parts)).toEqual(plain(loaded[1]!.parts));
  });

  it("cancelTurn on a parked reply answers the requests it cancelled, which show in the reply as a reload shows them", async () => {
    await start([{ text: "Pick one.", toolCalls: [pick] }]);
    const sessions = memorySessionMap();
    const transport = app.transport(sessions);
    const chat = app.chat({ transport });
    await chat.sendMessage({ text: "make me a poster" });
    expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "input-available" }]);
    const settled = await transport.cancelTurn(chat.id);
    expect(settled).toMatchObject([
      { type: "data-hitl-settled", data: { resolution: { action: "cancel" }, result: { outcome: "cancelled" } } },
    ]);
    chat.messages = settled.reduce(applyHitlSettlement, chat.messages);
    expect(toolParts(chat.lastMessage)).toMatchObject([
      { state: "output-error", errorText: "The person stopped the turn." },
    ]);
    const loaded = await transport.loadMessages(chat.id);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(chat.lastMessage!.parts)).toEqual(plain(loaded.at(-1)!.parts));
    expect(await transport.cancelTurn(chat.id)).toEqual([]); // nothing left to stop
  });

  it("cancelTurn on a parked approval leaves its part with no approval to give, live and after a reload", async () => {
    await start([{ text: "Publishing.", toolCalls: [publish] }]);
    const transport = app.transport(memorySessionMap());
    const chat = app.chat({ transport });
    await chat.sendMessage({ text: "publish my poster" });
    expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "approval-requested" }]);
    chat.messages = (await transport.cancelTurn(chat.id)).reduce(applyHitlSettlement, chat.messages);
    const [part] = toolParts(chat.lastMessage);
    expect(part).toMatchObject({ state: "output-error", errorText: "The person stopped the turn." });
    expect(part).not.toHaveProperty("approval");
    const loaded = await transport.loadMessages(chat.id);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(chat.lastMessage!.parts)).toEqual(plain(loaded.at(-1)!.parts));
  });

  it("loadMessages rebuilds from the server the messages the live stream built", async () => {
    await start([
      { reasoning: "They want a poster.", text: "Pick one.", toolCalls: [pick] },
      { text: "Publishing.", toolCalls: [publish] },
      { text: "Not published." },
    ]);
    const sessions = memorySessionMap();
    const chat = app.chat({ transport: app.transport(sessions) });
    await chat.sendMessage({ text: "make me a poster" });
    const [picked] = toolParts(chat.lastMessage);
    await chat.addToolOutput({ tool: "pick_template", toolCallId: picked!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() => expect(toolParts(chat.lastMessage).at(-1)).toMatchObject({ state: "approval-requested" }), {
      timeout: 5000,
    });
    const approval = toolParts(chat.lastMessage).at(-1)!;
    const approvalId = approval.state === "approval-requested" ? approval.approval.id : "";
    await chat.addToolApprovalResponse({ id: approvalId, approved: false, reason: "not yet" });
    await vi.waitFor(() => expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ text: "Not published." }));
    await vi.waitFor(() => expect(chat.status).toBe("ready"));

    const loaded = await app.transport(sessions).loadMessages(chat.id);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(loaded.at(-1)!.parts)).toEqual(plain(chat.lastMessage!.parts));
    expect(loaded.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(loaded.at(-1)!.id).toBe(chat.lastMessage!.id);
    if (setup.name !== "OpenAI Chat Completions API (@ai-sdk/openai, local)") {
      expect(chat.lastMessage?.parts).toContainEqual(
        expect.objectContaining({ type: "reasoning", text: "They want a poster." }),
      );
    }
    expect(app.log.refused).toEqual([]);
  });

  it("a failed turn ends the chat's request with an error, which a reload shows again until the next turn", async () => {
    await start([{ text: "Pick one.", toolCalls: [pick] }]);
    const sessions = memorySessionMap();
    const chat = app.chat({ transport: app.transport(sessions) });
    await chat.sendMessage({ text: "make me a poster" });
    const [part] = toolParts(chat.lastMessage);
    await chat.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() => expect(chat.status).toBe("error"));
    expect(chat.error?.message).toBeTruthy();
    expect(app.log.chunks.at(-1)).toMatchObject({ type: "error" });
    expect(app.log.refused).toEqual([]);

    // A reload: the history, then resume, as useChat({ messages, resume: true }) does.
    const transport = app.transport(sessions);
    const loaded = await transport.loadMessages(chat.id);
    const reloaded = app.chat({ id: chat.id, transport, messages: loaded });
    await reloaded.resumeStream();
    await vi.waitFor(() => expect(reloaded.status).toBe("error"));
    expect(reloaded.error?.message).toBe(chat.error?.message);
    expect(reloaded.messages.map((message) => message.id)).toEqual(loaded.map((message) => message.id));
  });
});

describe("what the transport refuses", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  afterEach(async () => {
    await app?.close();
  });

  it("regenerating a reply or editing an earlier message, with an error that says why", async () => {
    app = await startApp(setups[0]!, [{ text: "Hello." }, { text: "Again." }]);
    const chat = app.chat();
    await chat.sendMessage({ text: "hi" });
    await chat.regenerate();
    expect(chat.error?.message).toMatch(/cannot be regenerated/);
    await chat.sendMessage({ text: "hi, edited", messageId: chat.messages[0]!.id });
    expect(chat.error?.message).toMatch(/nor an earlier message edited/);
  });

  it("a message without text", async () => {
    app = await startApp(setups[0]!, [{ text: "Hello." }]);
    const chat = app.chat();
    await chat.sendMessage({ files: [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AA==" }] });
    expect(chat.error?.message).toMatch(/sends text messages/);
  });

  it("a url that is missing", () => {
    expect(() => hitlChatTransport({ url: "" })).toThrow(/needs the url/);
  });
});

describe("resuming a reply that is still streaming", () => {
  it("replays what streamed so far and follows the rest, each word once", async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(" ");
    const app = await startApp(setups[0]!, [{ text: words }], { chunkDelayMs: 15 });
    try {
      const sessions = memorySessionMap();
      const first = app.chat({ transport: app.transport(sessions) });
      const sending = first.sendMessage({ text: "talk" });
      await vi.waitFor(() => expect(first.lastMessage?.parts.some((part) => part.type === "text")).toBe(true));
      const later = app.chat({ id: first.id, transport: app.transport(sessions) });
      await later.resumeStream();
      await sending;
      const text = (later.lastMessage?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
      expect(text).toEqual([words]);
      expect(later.status).toBe("ready");
      expect(app.log.refused).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe("a dropped connection", () => {
  it("resends a session's creation and a message whose replies were lost, and an answer the server could not take: one session, one turn, one result", async () => {
    const app = await startApp(setups[0]!, [{ text: "Publishing.", toolCalls: [publish] }, { text: "Published." }]);
    try {
      const failing: Record<string, "lost" | "unavailable"> = {
        sessions: "lost",
        messages: "lost",
        responses: "unavailable",
      };
      const fetch = async (input: string, init?: RequestInit) => {
        const command = /\/(sessions|messages|responses)$/.exec(new URL(input).pathname)?.[1];
        const failure = command ? failing[command] : undefined;
        if (command) delete failing[command];
        if (failure === "unavailable") {
          return Response.json({ error: { code: "unavailable", message: "Restarting." } }, { status: 503 });
        }
        const response = await app.fetch(input, init);
        if (failure === "lost") throw new TypeError("network connection lost");
        return response;
      };
      const sessions = memorySessionMap();
      const transport = hitlChatTransport({
        url: app.url,
        fetch,
        sessions,
        retry: { initialDelayMs: 1, maxDelayMs: 5 },
      });
      const chat = app.chat({ transport });
      await chat.sendMessage({ text: "publish my poster" });
      const [part] = toolParts(chat.lastMessage);
      await chat.addToolApprovalResponse({
        id: part!.state === "approval-requested" ? part!.approval.id : "",
        approved: true,
      });
      await vi.waitFor(() => expect(chat.status).toBe("ready"));
      expect(chat.error).toBeUndefined();
      expect(failing).toEqual({});
      const sessionId = (await transport.sessionIdOf(chat.id))!;
      expect(await app.runtime.listSessions()).toEqual([expect.objectContaining({ sessionId })]);
      const { events, problems } = await app.events(sessionId);
      expect(problems).toEqual([]);
      expect(events.filter((event) => event.type === "turn.started" && event.cause === "message")).toHaveLength(1);
      expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "ok" }]);
    } finally {
      await app.close();
    }
  });
});

describe("Stop through the transport", () => {
  const words = Array.from({ length: 60 }, (_, index) => `w${index}`).join(" ");
  let app: Awaited<ReturnType<typeof startApp>>;
  afterEach(async () => {
    await app?.close();
  });

  /** The chat's text, the session's turns and whether every call has its one result. */
  async function outcome(
    chat: ReturnType<typeof app.chat>,
    transport: { sessionIdOf(id: string): Promise<string | undefined> },
  ) {
    const sessionId = (await transport.sessionIdOf(chat.id))!;
    const { events, problems } = await app.events(sessionId);
    const text = (chat.lastMessage?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    return {
      events,
      problems,
      text,
      ends: events.filter((event) => event.type.startsWith("turn.") && event.type !== "turn.started"),
    };
  }

  it("cancelTurn stops the reply on the server, and the chat's stream shows it end", async () => {
    app = await startApp(setups[0]!, [{ text: words }], { chunkDelayMs: 15 });
    const transport = app.transport();
    const chat = app.chat({ transport });
    const sending = chat.sendMessage({ text: "talk" });
    // Some text, not only the text part's start: on a busy machine the Stop may otherwise come first.
    await vi.waitFor(
      () => expect(chat.lastMessage?.parts.some((part) => part.type === "text" && part.text.length > 0)).toBe(true),
      { timeout: 5000 },
    );
    await transport.cancelTurn(chat.id);
    await sending;
    expect(chat.status).toBe("ready");
    expect(chat.error).toBeUndefined();
    const { ends, problems, text } = await outcome(chat, transport);
    expect(ends.map((event) => event.type)).toEqual(["turn.cancelled"]);
    expect(problems).toEqual([]);
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(words.length);
    // The chat goes on with its next message.
    await chat.sendMessage({ text: "again" });
    expect(chat.status).toBe("ready");
    expect((await outcome(chat, transport)).ends.map((event) => event.type)).toEqual([
      "turn.cancelled",
      "turn.completed",
    ]);
  });

  it("sends a message the person sent while a reply streamed once that turn ends, rather than losing it to a 409", async () => {
    app = await startApp(setups[0]!, [{ text: words }, { text: "Second reply." }], { chunkDelayMs: 15 });
    const transport = app.transport();
    const chat = app.chat({ transport });
    const first = chat.sendMessage({ text: "talk" });
    await vi.waitFor(() => expect(chat.status).toBe("streaming"));
    const second = chat.sendMessage({ text: "and then?" });
    await Promise.all([first, second]);
    await vi.waitFor(async () =>
      expect((await outcome(chat, transport)).ends.map((event) => event.type)).toEqual([
        "turn.completed",
        "turn.completed",
      ]),
    );
    const sessionId = (await transport.sessionIdOf(chat.id))!;
    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.flatMap((event) => (event.type === "turn.started" ? [event.cause] : []))).toEqual([
      "message",
      "message",
    ]);
    expect(chat.messages.filter((message) => message.role === "user")).toHaveLength(2);
    expect(chat.error).toBeUndefined();
  });

  it("cancelTurn while the message is still on its way stops the turn it starts", async () => {
    app = await startApp(setups[0]!, [{ text: words }], { chunkDelayMs: 15 });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fetch = async (input: string, init?: RequestInit) => {
      if (new URL(input).pathname.endsWith("/messages")) await held;
      return app.fetch(input, init);
    };
    const transport = hitlChatTransport({ url: app.url, fetch, sessions: memorySessionMap() });
    const chat = app.chat({ transport });
    const sending = chat.sendMessage({ text: "talk" });
    await vi.waitFor(() => expect(chat.status).toBe("submitted"));
    const stopping = transport.cancelTurn(chat.id);
    // Long enough for a cancel that did not wait for the message to reach the server first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await stopping;
    await sending;
    expect(chat.status).toBe("ready");
    expect((await outcome(chat, transport)).ends.map((event) => event.type)).toEqual(["turn.cancelled"]);
    // A chat with no session has nothing to stop.
    await expect(transport.cancelTurn("chat-without-session")).resolves.toEqual([]);
  });

  it("cancelTurn on a parked turn cancels its request, with the call's one result", async () => {
    app = await startApp(setups[0]!, [{ text: "Publishing.", toolCalls: [publish] }]);
    const transport = app.transport();
    const chat = app.chat({ transport });
    await chat.sendMessage({ text: "publish" });
    expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "approval-requested" }]);
    await transport.cancelTurn(chat.id);
    const { events, problems } = await outcome(chat, transport);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "cancelled" }]);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
  });
});
