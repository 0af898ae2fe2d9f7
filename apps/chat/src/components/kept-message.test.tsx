import { createAgentClient, type OutboxStorage } from "@hitl-kit/client";
import { AgentProvider } from "@hitl-kit/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { startChat } from "../../test/chat-harness.js";
import { chatWidgets } from "../widgets/chat-widgets.js";
import { ChatPanel } from "./chat-panel.js";

let chat: ReturnType<typeof startChat> | undefined;
afterEach(async () => {
  cleanup();
  await chat?.close();
  chat = undefined;
});

describe("a message the page kept as unsent, which the server took long before the history shown", () => {
  it("is checked with the server, not shown as Not sent, and leaves the chat and the page's storage", async () => {
    // happy-dom's Request carries no Cookie header set by hand: name the one person instead.
    chat = startChat({ identify: () => "ada" });
    const served = chat;
    const id = await served.session();
    // The server took "Hello there" under its key, but the page closed before it learned so;
    // then the chat went on (in another tab, say) for more than the first page of 50 messages.
    await served.api.sendMessage(id, "Hello there", { key: "kept-key" });
    await served.app.runtime.idle();
    for (let turn = 0; turn < 26; turn++) await served.send(id, `note ${turn}`);

    const items = new Map([
      [`hitl-kit:outbox:${id}`, JSON.stringify({ messages: [{ key: "kept-key", text: "Hello there" }] })],
    ]);
    const storage: OutboxStorage = {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => void items.set(key, value),
      removeItem: (key) => void items.delete(key),
    };
    // The page's fetch, with the server's answer about kept messages held until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[] = [];
    const fetch = async (url: string, init?: RequestInit) => {
      const request = new Request(url, init);
      if (request.method !== "GET") sent.push(`${request.method} ${new URL(url).pathname}`);
      if (request.method === "GET" && new URL(url).pathname.endsWith("/messages")) await held;
      return served.app.handler(request);
    };
    const client = createAgentClient({
      url: "http://127.0.0.1/api/agent",
      fetch,
      sessionId: id,
      outboxStorage: storage,
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <AgentProvider client={client}>
          <ChatPanel api={served.api} widgets={chatWidgets} onNew={() => {}} />
        </AgentProvider>
      </QueryClientProvider>,
    );
    await act(() => client.ready);
    const log = screen.getByRole("log", { name: "Conversation" });
    const kept = () =>
      within(log)
        .queryAllByRole("article", { name: "You" })
        .filter((article) => article.textContent?.includes("Hello there"));

    // While the server is asked, the message says so: not "Not sent", no Send again, no Stop.
    await waitFor(() => expect(kept()[0]?.textContent).toContain("Checking whether it was sent…"));
    expect(kept()[0]?.dataset.state).toBe("checking");
    expect(within(log).queryByRole("alert")).toBeNull();
    expect(within(log).queryByRole("button", { name: "Send again" })).toBeNull();
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy();

    await act(async () => {
      release();
      await held;
    });
    await waitFor(() => expect(kept()).toEqual([]));
    expect(within(log).queryByRole("alert")).toBeNull();
    expect(items.size).toBe(0);
    expect(sent).toEqual([]); // nothing was sent again
  });
});
