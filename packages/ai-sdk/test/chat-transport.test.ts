import { PROTOCOL_VERSION } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { executions } from "../../server/test/tools.js";
import { hitlChatTransport, memorySessionMap } from "../src/index.js";
import { type Reply, setups, startApp, toolParts } from "./setups.js";

const publish = { name: "publish_poster", input: { title: "Spring" } };
const pick = { name: "pick_template", input: { templates: ["a", "b"] } };

describe.each(setups)("useChat's Chat on hitl-kit ($name)", (setup) => {
  let app: Awaited<ReturnType<typeof startApp>>;
  afterEach(async () => {
    await app?.close();
  });

  async function start(replies: Reply[]) {
    app = await startApp(setup, replies);
    return app;
  }

  /** A chat whose reply parked on a request, then stopped reading, as a page left before a reload: its session map and the chat. */
  async function parkedThenLeft(replies: Reply[], text: string) {
    await start(replies);
    const sessions = memorySessionMap();
    const before = app.chat({ transport: app.transport(sessions) });
    await before.sendMessage({ text });
    await before.stop();
    return { sessions, before };
  }

  /** Every chunk passed the AI SDK's schema, and every provider request was accepted. */
  function expectCleanRun() {
    expect(app.log.refused).toEqual([]);
    expect(app.log.chunks.length).toBeGreaterThan(0);
    expect(app.providerRequests().filter((request) => request.status !== 200)).toEqual([]);
  }

  it("an approval declined ends output-denied, with exactly one tool.result", async () => {
    await start([{ text: "Publishing.", toolCalls: [publish] }, { text: "Not published." }]);
    const chat = app.chat();
    await chat.sendMessage({ text: "publish my poster" });
    const [part] = toolParts(chat.lastMessage);
    expect(part).toMatchObject({ type: "tool-publish_poster", state: "approval-requested" });
    expect(chat.lastMessage?.parts.find((p) => p.type === "data-hitl-request")).toMatchObject({
      data: { state: "open", request: { kind: "approval", toolName: "publish_poster" } },
    });

    const approvalId = part!.state === "approval-requested" ? part!.approval.id : "";
    await chat.addToolApprovalResponse({ id: approvalId, approved: false, reason: "wrong title" });
    await vi.waitFor(() =>
      expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Not published." }),
    );
    await vi.waitFor(() => expect(chat.status).toBe("ready"));

    expect(toolParts(chat.lastMessage)).toMatchObject([
      { state: "output-denied", approval: { id: approvalId, approved: false, reason: "wrong title" } },
    ]);
    expect(chat.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expectCleanRun();
  });

  it("addToolOutput on a client tool resumes the turn", async () => {
    await start([{ text: "Pick one.", toolCalls: [pick] }, { text: "Made it with a." }]);
    const chat = app.chat();
    await chat.sendMessage({ text: "make me a poster" });
    const [part] = toolParts(chat.lastMessage);
    expect(part).toMatchObject({ type: "tool-pick_template", state: "input-available", input: pick.input });

    await chat.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() =>
      expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Made it with a." }),
    );
    await vi.waitFor(() => expect(chat.status).toBe("ready"));
    expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "output-available", output: { templateId: "a" } }]);
    expect(chat.lastMessage?.parts.find((p) => p.type === "data-hitl-request")).toMatchObject({
      data: { state: "settled", resolution: { action: "accept", value: { templateId: "a" } } },
    });
    expectCleanRun();
  });

  it("a fresh chat with resume shows the open request, and answering it there resumes the turn", async () => {
    const { sessions, before } = await parkedThenLeft(
      [{ text: "Pick one.", toolCalls: [pick] }, { text: "Made it with b." }],
      "make me a poster",
    );

    // A reload: a new transport and chat with the same id and the stored session map.
    const transport = app.transport(sessions);
    const after = app.chat({ id: before.id, transport });
    await after.resumeStream();
    expect(after.messages).toHaveLength(1);
    const [part] = toolParts(after.lastMessage);
    expect(part).toMatchObject({ type: "tool-pick_template", state: "input-available", input: pick.input });
    expect(after.lastMessage?.parts.find((p) => p.type === "data-hitl-request")).toMatchObject({
      data: { state: "open", request: { toolCallId: part!.toolCallId } },
    });

    // Loading the history first gives the whole conversation; resuming replaces the reply in place.
    const loaded = await transport.loadMessages(before.id);
    expect(loaded.map((message) => message.role)).toEqual(["user", "assistant"]);
    const hydrated = app.chat({ id: before.id, transport, messages: loaded });
    await hydrated.resumeStream();
    expect(hydrated.messages.map((message) => message.id)).toEqual(loaded.map((message) => message.id));

    await hydrated.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "b" } });
    await vi.waitFor(() =>
      expect(hydrated.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Made it with b." }),
    );
    const sessionId = (await transport.sessionIdOf(before.id))!;
    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toHaveLength(1);
    expectCleanRun();
  });

  it("keeps the loaded parked reply for the resume that goes on when React's StrictMode abandons the first", async () => {
    const { sessions, before } = await parkedThenLeft(
      [{ text: "Publishing.", toolCalls: [publish] }, { text: "Published." }],
      "publish my poster",
    );

    const transport = app.transport(sessions);
    await transport.loadMessages(before.id);
    const abandoned = new AbortController();
    const first = transport.reconnectToStream({ chatId: before.id, abortSignal: abandoned.signal });
    abandoned.abort();
    expect(await first).toBeNull();
    // The second mount's resume: the chat shows the loaded reply, so nothing replays over it.
    expect(
      await transport.reconnectToStream({ chatId: before.id, abortSignal: new AbortController().signal }),
    ).toBeNull();
  });

  it("an answer given as the reloaded chat resumes is kept and sent, and a reply that moved on since loading is replayed", async () => {
    const { sessions, before } = await parkedThenLeft(
      [{ text: "Publishing.", toolCalls: [publish] }, { text: "Published." }],
      "publish my poster",
    );

    // A reload: the chat starts from the loaded history, and the person approves the moment
    // the resume has the server's answer, before anything it streams is applied.
    const inner = app.transport(sessions);
    let approve = () => {};
    const transport: typeof inner = {
      ...inner,
      async reconnectToStream(options) {
        const stream = await inner.reconnectToStream(options);
        if (!stream) {
          approve();
          return stream;
        }
        let first = true;
        return stream.pipeThrough(
          new TransformStream({
            transform(chunk, controller) {
              if (first) approve();
              first = false;
              controller.enqueue(chunk);
            },
          }),
        );
      },
    };
    const chat = app.chat({ id: before.id, transport, messages: await transport.loadMessages(before.id) });
    const [part] = toolParts(chat.lastMessage);
    const approvalId = part!.state === "approval-requested" ? part!.approval.id : "";
    approve = () => void chat.addToolApprovalResponse({ id: approvalId, approved: true });
    await chat.resumeStream();
    await vi.waitFor(() => expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Published." }));
    const sessionId = (await transport.sessionIdOf(before.id))!;
    expect((await app.events(sessionId)).events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok" },
    ]);

    // History loaded while parked, then answered elsewhere so the turn parks again: the resume shows the new request.
    await start([
      { text: "Pick one.", toolCalls: [pick] },
      { text: "Publishing.", toolCalls: [publish] },
    ]);
    const first = app.chat({ transport: app.transport(sessions) });
    await first.sendMessage({ text: "make and publish my poster" });
    const later = app.transport(sessions);
    const loaded = await later.loadMessages(first.id);
    const [picking] = toolParts(first.lastMessage);
    await first.addToolOutput({ tool: "pick_template", toolCallId: picking!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() => expect(toolParts(first.lastMessage)).toHaveLength(2));
    await vi.waitFor(() => expect(first.status).toBe("ready"));
    const stale = app.chat({ id: first.id, transport: later, messages: loaded });
    await stale.resumeStream();
    expect(toolParts(stale.lastMessage).map((part) => part.state)).toEqual(["output-available", "approval-requested"]);
    expectCleanRun();
  });

  it("an answer another tab gave first wins: the chat shows it and the reply, not an error", async () => {
    const { sessions, before } = await parkedThenLeft(
      [{ text: "Pick one.", toolCalls: [pick] }, { text: "Made it with a." }],
      "make me a poster",
    );
    // Tab B sends its answer only once tab A's is taken, after B loaded the request as open.
    let aAnswered = () => {};
    const gate = new Promise<void>((resolve) => {
      aAnswered = resolve;
    });
    const held =
      (direct: typeof app.fetch): typeof app.fetch =>
      async (input, init) => {
        if (init?.method === "POST" && String(input).endsWith("/responses")) await gate;
        return direct(input, init);
      };
    const tabA = app.chat({ id: before.id, transport: app.transport(sessions) });
    const tabB = app.chat({ id: before.id, transport: app.transport(sessions, held) });
    await tabA.resumeStream();
    await tabB.resumeStream();
    const [part] = toolParts(tabB.lastMessage);

    void tabB.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "b" } });
    await tabA.addToolOutput({ tool: "pick_template", toolCallId: part!.toolCallId, output: { templateId: "a" } });
    await vi.waitFor(() => expect(tabA.lastMessage?.parts.at(-1)).toMatchObject({ text: "Made it with a." }));
    aAnswered();

    await vi.waitFor(() => expect(tabB.lastMessage?.parts.at(-1)).toMatchObject({ text: "Made it with a." }));
    await vi.waitFor(() => expect(tabB.status).toBe("ready"));
    expect(tabB.error).toBeUndefined();
    expect(tabB.lastMessage?.parts.find((p) => p.type === "data-hitl-request")).toMatchObject({
      data: { state: "settled", resolution: { action: "accept", value: { templateId: "a" } } },
    });
    expect(toolParts(tabB.lastMessage)).toMatchObject([{ state: "output-available", output: { templateId: "a" } }]);
    const sessionId = (await app.transport(sessions).sessionIdOf(before.id))!;
    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toHaveLength(1);
  });

  it("a new chat asks for no session under its own id, and a chat whose id is a session id opens that session", async () => {
    await start([{ text: "Hello." }]);
    const asked: string[] = [];
    const counted = (input: string, init?: RequestInit) => {
      asked.push(`${init?.method ?? "GET"} ${new URL(input).pathname}`);
      return app.fetch(input, init);
    };
    const transport = hitlChatTransport({ url: app.url, fetch: counted, sessions: memorySessionMap() });
    const chat = app.chat({ transport });
    expect(await transport.loadMessages(chat.id)).toEqual([]);
    await chat.sendMessage({ text: "hi" });
    await vi.waitFor(() => expect(chat.status).toBe("ready"));
    expect(asked.filter((request) => request.includes(chat.id))).toEqual([]);

    // No map knows it: the id alone finds the session.
    const sessionId = (await transport.sessionIdOf(chat.id))!;
    const elsewhere = hitlChatTransport({ url: app.url, fetch: app.fetch, sessions: memorySessionMap() });
    const loaded = await elsewhere.loadMessages(sessionId);
    expect(loaded.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(await elsewhere.sessionIdOf(sessionId)).toBe(sessionId);
  });

  it("a reply's stream that shows nothing for streamSilenceMs is reopened, and the reply arrives", async () => {
    await start([{ text: "Hello." }]);
    let opened = 0;
    // The first stream answers and then stays silent, as a dev proxy's does after its server died.
    const freezing = (input: string, init?: RequestInit) => {
      if (!new URL(input).pathname.endsWith("/events") || opened++ > 0) return app.fetch(input, init);
      const headers = { "content-type": "text/event-stream", "hitl-protocol": String(PROTOCOL_VERSION) };
      // As fetch's body does, it fails when the request's signal aborts.
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => init?.signal?.addEventListener("abort", () => controller.error(init.signal?.reason)),
      });
      return Promise.resolve(new Response(body, { headers }));
    };
    const transport = hitlChatTransport({
      url: app.url,
      fetch: freezing,
      sessions: memorySessionMap(),
      streamSilenceMs: 300,
    });
    const chat = app.chat({ transport });
    await chat.sendMessage({ text: "hi" });
    await vi.waitFor(() => expect(chat.lastMessage?.parts.at(-1)).toMatchObject({ type: "text", text: "Hello." }), {
      timeout: 5000,
    });
    expect(opened).toBe(2);
  });

  it("a forged or edited history changes nothing on the server", async () => {
    await start([{ text: "Publishing.", toolCalls: [publish] }, { text: "Not published." }]);
    const published = executions.filter((execution) => execution.tool === "publish_poster").length;
    const sessions = memorySessionMap();
    const chat = app.chat({ transport: app.transport(sessions) });
    await chat.sendMessage({ text: "publish my poster" });
    const sessionId = (await app.transport(sessions).sessionIdOf(chat.id))!;
    const [part] = toolParts(chat.lastMessage);
    const approvalId = part!.state === "approval-requested" ? part!.approval.id : "";

    // An approval under another id, for the open call: refused, the request stays open.
    const forged = structuredClone(chat.messages);
    const forgedPart = toolParts(forged.at(-1)).at(0)!;
    Object.assign(forgedPart, { state: "approval-responded", approval: { id: "req_forged", approved: true } });
    const forger = app.chat({ id: chat.id, transport: app.transport(sessions), messages: forged });
    await forger.sendMessage();
    expect(forger.status).toBe("error");
    expect(forger.error?.message).toMatch(/Nothing to send/);
    const seqBefore = (await app.events(sessionId)).events.length;

    // The real answer declines it.
    await chat.addToolApprovalResponse({ id: approvalId, approved: false });
    await vi.waitFor(() => expect(toolParts(chat.lastMessage)).toMatchObject([{ state: "output-denied" }]));
    await vi.waitFor(() => expect(chat.status).toBe("ready"));

    // Then a history that claims it was approved, with the right id: the request is settled, nothing happens.
    const edited = structuredClone(forged);
    Object.assign(toolParts(edited.at(-1)).at(0)!, { approval: { id: approvalId, approved: true } });
    const editor = app.chat({ id: chat.id, transport: app.transport(sessions), messages: edited });
    await editor.sendMessage();
    expect(editor.status).toBe("error");

    const { events, problems } = await app.events(sessionId);
    expect(problems).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "declined" }]);
    expect(events.length).toBeGreaterThan(seqBefore);
    expect(executions.filter((execution) => execution.tool === "publish_poster")).toHaveLength(published);
    expectCleanRun();
  });
});

describe("loadMessages on a long session", () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it("gives the whole conversation, every page of it, starting with its first message", async () => {
    // 130 exchanges (260 messages: the server's newest page holds 50), a parked picker in the first.
    const replies: Reply[] = [{ text: "Pick one.", toolCalls: [pick] }];
    for (let turn = 1; turn <= 130; turn++) replies.push({ text: `Reply ${turn}.` });
    app = await startApp(setups[0]!, replies);
    const { sessionId } = await app.runtime.createSession({ owner: "ada" });
    await app.runtime.sendMessage(sessionId, "make me a poster");
    await app.runtime.idle();
    const [request] = (await app.runtime.getSnapshot(sessionId)).pending;
    await app.runtime.respond(sessionId, [
      { requestId: request!.requestId, action: "accept", value: { templateId: "a" } },
    ]);
    await app.runtime.idle();
    for (let turn = 2; turn <= 130; turn++) {
      await app.runtime.sendMessage(sessionId, `message ${turn}`);
      await app.runtime.idle();
    }

    const loaded = await app.transport().loadMessages(sessionId);
    expect(loaded).toHaveLength(260);
    expect(loaded.map((message) => message.role)).toEqual(
      Array.from({ length: 260 }, (_, index) => (index % 2 ? "assistant" : "user")),
    );
    expect(loaded[0]!.parts).toMatchObject([{ type: "text", text: "make me a poster" }]);
    expect(toolParts(loaded[1])).toMatchObject([{ state: "output-available", output: { templateId: "a" } }]);
    expect(loaded.at(-2)!.parts).toMatchObject([{ type: "text", text: "message 130" }]);
  });
});
