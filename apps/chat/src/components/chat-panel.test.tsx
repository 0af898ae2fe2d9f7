import { createAgentClient, createApiClient, type RecordedCommand, replayTransport } from "@hitl-kit/client";
import { emptySnapshot, ProtocolError, type ProtocolEvent, reduceSession } from "@hitl-kit/protocol";
import { AgentProvider } from "@hitl-kit/react";
import { scriptedModel } from "@hitl-kit/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { demoScript } from "../../server/demo-script.js";
import { startChat } from "../../test/chat-harness.js";
import { chatWidgets } from "../widgets/chat-widgets.js";
import { ChatPanel } from "./chat-panel.js";
import { SessionSidebar } from "./session-sidebar.js";

afterEach(cleanup);

/** A refund over 1000, recorded from the real runtime: it parks for approval, then is approved and replies. */
async function recordRefund() {
  // happy-dom's Request, like a browser's, carries no Cookie header set by hand: name the one person instead.
  // The words come slower than the runtime batches streamed text, so the reply has a delta per word.
  const chat = startChat({
    identify: () => "recorder",
    model: { model: scriptedModel(demoScript, { chunkDelayMs: 12 }), label: "scripted" },
  });
  const id = await chat.session();
  await chat.send(id, "refund 1500");
  await chat.answer(id, { action: "accept", value: {} });
  const events = await chat.events(id);
  await chat.close();
  return events;
}

const seqOf = (events: ProtocolEvent[], type: ProtocolEvent["type"], nth = 0) =>
  events.filter((event) => event.type === type)[nth]?.seq ?? Number.NaN;

/**
 * The chat with its sidebar over a replayed session. The sessions list is what the
 * server would answer at that point of the recording: the status of the events played so
 * far, and a title once a message was sent.
 */
async function renderChat(events: ProtocolEvent[], refuse?: (command: RecordedCommand) => ProtocolError | undefined) {
  const sessionId = events[0]?.sessionId ?? "";
  const firstTurn = events.find((event) => event.type === "turn.started");
  const replay = replayTransport(events, {
    playedTo: seqOf(events, "session.created"),
    answer: (command) => {
      const refusal = refuse?.(command);
      if (refusal) throw refusal;
      return {
        status: 202,
        body: command.type === "message" ? { turnId: firstTurn?.type === "turn.started" ? firstTurn.turnId : "" } : {},
      };
    },
  });
  const listSessions = vi.fn(async () => {
    const played = replay.events.filter((event) => event.seq <= replay.position);
    const snapshot = played.reduce(reduceSession, emptySnapshot(sessionId));
    const sent = replay.commands.some((command) => command.type === "message");
    const session = {
      sessionId,
      createdAt: "2026-05-01T10:00:00Z",
      status: snapshot.status,
      lastSeq: snapshot.lastSeq,
    };
    const body = { sessions: [{ ...session, ...(sent ? { title: "refund 1500" } : {}) }] };
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  });
  const api = createApiClient({ url: "/api/agent", fetch: listSessions });
  const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SessionSidebar api={api} currentId={sessionId} onNew={() => {}} />
      <AgentProvider client={client}>
        <ChatPanel api={api} widgets={chatWidgets} onNew={() => {}} />
      </AgentProvider>
    </QueryClientProvider>,
  );
  await act(() => client.ready);
  const link = () => within(screen.getByRole("navigation", { name: "Chats" })).getByRole("link");
  return { replay, listSessions, link };
}

describe("ChatPanel and the session list", () => {
  it("refreshes the list when a message is sent and when the session's status changes, not per text delta", async () => {
    const events = await recordRefund();
    const { replay, listSessions, link } = await renderChat(events);
    await waitFor(() => expect(link().textContent).toContain("New chat"));

    fireEvent.change(screen.getByRole("textbox", { name: "Message" }), { target: { value: "refund 1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(link().textContent).toContain("refund 1500"));

    replay.stepTo(seqOf(events, "turn.waiting"));
    await waitFor(() => expect(link().textContent).toContain("Waiting for you"));

    // Approved: the reply's turn starts, so the session is replying, not waiting.
    replay.stepTo(seqOf(events, "turn.started", 1));
    await waitFor(() => expect(link().textContent).toContain("Replying"));

    const fetched = listSessions.mock.calls.length;
    const deltas = events.filter((event) => event.type === "text.delta" && event.seq > replay.position);
    expect(deltas.length).toBeGreaterThan(3);
    replay.stepTo(seqOf(events, "turn.completed") - 1);
    await waitFor(() => expect(screen.getByRole("log").textContent).toContain("Refunded 1500.00"));
    expect(listSessions.mock.calls.length).toBe(fetched);

    replay.playAll();
    await waitFor(() => expect(link().textContent).not.toMatch(/Replying|Waiting/));
    expect(link().getAttribute("data-status")).toBe("idle");
  });

  it("keeps the log busy while a reply streams, so a screen reader reads it once, whole", async () => {
    const events = await recordRefund();
    const { replay } = await renderChat(events);
    fireEvent.change(screen.getByRole("textbox", { name: "Message" }), { target: { value: "refund 1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    const reply = events.filter((event) => event.type === "text.delta").at(-3)!;
    replay.stepTo(reply.seq);
    const log = screen.getByRole("log");
    await waitFor(() => expect(log.getAttribute("aria-busy")).toBe("true"));
    expect(log.querySelector('[data-state="streaming"] [aria-busy="true"]')).not.toBeNull();

    replay.playAll();
    await waitFor(() => expect(log.textContent).toContain("Refunded 1500.00"));
    await waitFor(() => expect(log.hasAttribute("aria-busy")).toBe(false));
    expect(log.querySelector('[aria-busy="true"]')).toBeNull();
  });

  it("shows a message at once, keeps one that was not sent in place to send again or edit, and shows it once", async () => {
    const events = await recordRefund();
    let refusals = 2;
    const { replay } = await renderChat(events, (command) =>
      command.type === "message" && refusals-- > 0
        ? new ProtocolError("turn_running", "A reply is still running; wait for it or stop it.")
        : undefined,
    );
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    const log = screen.getByRole("log", { name: "Conversation" });
    const mine = () => within(log).queryAllByRole("article", { name: "You" });
    const texts = () => mine().map((article) => article.querySelector(".chat-message__body")?.textContent);

    fireEvent.change(box, { target: { value: "refund 1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(box.value).toBe("");
    expect(texts()).toEqual(["refund 1500"]);
    const alert = await within(log).findByRole("alert");
    expect(alert.textContent).toContain("Not sent: The assistant is still replying. Wait for it to finish, or stop it");
    expect(mine()[0]?.dataset.state).toBe("failed");

    // Sent again: the same message, under the same key; refused again, then edited.
    // The alert is the reason alone, not the buttons' labels too.
    expect(within(alert).queryAllByRole("button")).toEqual([]);
    fireEvent.click(within(log).getByRole("button", { name: "Send again" }));
    // Its buttons go with the failure: focus moves to the text box.
    expect(document.activeElement).toBe(box);
    await waitFor(() => expect(replay.commands.filter((command) => command.type === "message")).toHaveLength(2));
    const edit = await within(log).findByRole("button", { name: "Edit" });
    const [first, second] = replay.commands.filter((command) => command.type === "message");
    expect(first).toMatchObject({ text: "refund 1500", key: (second as { key: string }).key });
    fireEvent.click(edit);
    expect(box.value).toBe("refund 1500");
    expect(document.activeElement).toBe(box);
    expect(mine()).toEqual([]);

    // Sent from the box, it is taken: it stays in place until the stream shows it, then shows once.
    fireEvent.change(box, { target: { value: "refund 1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(mine()[0]?.dataset.state).toBe("accepted"));
    replay.stepTo(seqOf(events, "message.completed"));
    await waitFor(() => expect(mine()[0]?.dataset.state).toBe("complete"));
    expect(texts()).toEqual(["refund 1500"]);
    expect(within(log).queryByRole("alert")).toBeNull();
  });
});

describe("Stop", () => {
  it("reads Stopping… until the turn has stopped, and Stop again once a refused cancel says why", async () => {
    const events = await recordRefund();
    let refuseCancel = true;
    const { replay } = await renderChat(events, (command) =>
      command.type === "cancel" && refuseCancel
        ? new ProtocolError("network", "The server could not be reached.")
        : undefined,
    );
    fireEvent.change(screen.getByRole("textbox", { name: "Message" }), { target: { value: "refund 1500" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    replay.stepTo(seqOf(events, "text.delta", 1));
    const stop = await screen.findByRole("button", { name: "Stop" });
    // The second click of a double click on Send lands on Stop: it stops nothing.
    fireEvent.click(stop, { detail: 2 });
    expect(replay.commands.filter((command) => command.type === "cancel")).toHaveLength(0);

    fireEvent.click(stop, { detail: 1 });
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("Could not stop"));
    expect(screen.getByRole("button", { name: "Stop" })).toHaveProperty("disabled", false);

    refuseCancel = false;
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    const stopping = await screen.findByRole("button", { name: "Stopping…" });
    expect(stopping).toHaveProperty("disabled", true);
    await waitFor(() => expect(replay.commands.filter((command) => command.type === "cancel")).toHaveLength(2));
    expect(screen.getByRole("button", { name: "Stopping…" })).toBe(stopping);
    // The turn ends (here, as recorded): Send is back.
    replay.playAll();
    await screen.findByRole("button", { name: "Send" });
    expect(screen.queryByRole("button", { name: /Stop/ })).toBeNull();
  });
});

describe("SessionSidebar", () => {
  it("lists a chat whose first message is still to send by that message, and says it was not sent", async () => {
    const sessions = [
      { sessionId: "ses_current", createdAt: "2026-05-01T10:00:00Z", status: "idle", lastSeq: 1 },
      { sessionId: "ses_unsent", createdAt: "2026-05-01T09:00:00Z", status: "idle", lastSeq: 1 },
      { sessionId: "ses_empty", createdAt: "2026-05-01T08:00:00Z", status: "idle", lastSeq: 1 },
      {
        sessionId: "ses_titled",
        createdAt: "2026-05-01T07:00:00Z",
        status: "waiting",
        lastSeq: 9,
        title: "refund 1500",
      },
    ];
    const fetch = async () =>
      new Response(JSON.stringify({ sessions }), { headers: { "content-type": "application/json" } });
    const unsent = (id: string) => (id === "ses_unsent" ? "make me a poster" : undefined);
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <SessionSidebar
          api={createApiClient({ url: "/api/agent", fetch })}
          currentId="ses_current"
          onNew={() => {}}
          unsent={unsent}
        />
      </QueryClientProvider>,
    );
    const nav = screen.getByRole("navigation", { name: "Chats" });
    await waitFor(() => expect(within(nav).getAllByRole("link")).toHaveLength(3));
    const links = within(nav)
      .getAllByRole("link")
      .map((link) => link.textContent);
    expect(links[0]).toContain("New chat");
    expect(links[1]).toContain("make me a poster");
    expect(links[1]).toContain("Not sent");
    expect(links[2]).toContain("refund 1500");
    expect(links[2]).toContain("Waiting for you");
  });
});
