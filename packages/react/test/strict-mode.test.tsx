import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentProvider, useAgent } from "../src/index.js";
import { startLiveServer } from "./live-server.js";

let live: Awaited<ReturnType<typeof startLiveServer>> | undefined;
afterEach(async () => {
  cleanup();
  await live?.close();
  live = undefined;
});

function Chat({ url, sessionId }: { url: string; sessionId?: string }) {
  const agent = useAgent({ url, ...(sessionId ? { sessionId } : {}) });
  return (
    <main data-status={agent.status} data-connection={agent.connection}>
      {agent.messages.map((message) => (
        <p key={message.id}>{message.parts.map((part) => (part.type === "text" ? part.text : "")).join("")}</p>
      ))}
      <button type="button" onClick={() => agent.send("hello")}>
        send
      </button>
    </main>
  );
}

const connection = () => document.querySelector("main")?.getAttribute("data-connection");
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("useAgent under StrictMode", () => {
  it("creates no session on load and exactly one with the first message, with one open stream", async () => {
    live = await startLiveServer([{ text: "Hi there." }]);
    render(
      <StrictMode>
        <Chat url={live.url} />
      </StrictMode>,
    );
    await settle();
    expect((await live.log()).requests).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "send" }));
    await screen.findByText("Hi there.");
    await settle();
    const { requests, streams } = await live.log();
    expect(requests.filter((line) => line === "POST /api/agent/sessions")).toHaveLength(1);
    expect(streams).toEqual({ opened: 1, open: 1 });
  });

  it("attaches to a session with one snapshot and one stream, and unmounting closes it", async () => {
    live = await startLiveServer([{ text: "Hi there." }]);
    const { sessionId } = await live.createSession();
    const view = render(
      <StrictMode>
        <Chat url={live.url} sessionId={sessionId} />
      </StrictMode>,
    );
    await waitFor(() => expect(connection()).toBe("open"));
    await settle();
    expect(await live.log()).toEqual({
      requests: [`GET /api/agent/sessions/${sessionId}`, `GET /api/agent/sessions/${sessionId}/events`],
      streams: { opened: 1, open: 1 },
    });
    view.unmount();
    await waitFor(async () => expect((await live!.log()).streams.open).toBe(0));
  });

  it("shares one stream between useAgent calls under one <AgentProvider>", async () => {
    live = await startLiveServer([{ text: "Hi there." }]);
    const { sessionId } = await live.createSession();
    const Status = () => <span>{useAgent((agent) => agent.status)}</span>;
    render(
      <StrictMode>
        <AgentProvider url={live.url} sessionId={sessionId}>
          <Status />
          <Status />
        </AgentProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(screen.getAllByText("idle")).toHaveLength(2));
    await settle();
    expect((await live.log()).streams).toEqual({ opened: 1, open: 1 });
  });

  it("renders on the server without a request, a timer, window or anything random", async () => {
    live = await startLiveServer([{ text: "Hi there." }]);
    const { window: saved } = globalThis as { window?: unknown };
    Reflect.deleteProperty(globalThis, "window");
    // Next.js's prerender (Cache Components) refuses a client component that draws random values.
    const random = vi.spyOn(crypto, "getRandomValues");
    try {
      const html = renderToString(<Chat url={live.url} sessionId="ses_from_the_page" />);
      expect(html).toContain('data-status="connecting"');
      expect(renderToString(<Chat url={live.url} />)).toContain('data-status="idle"');
      expect(random).not.toHaveBeenCalled();
    } finally {
      random.mockRestore();
      (globalThis as { window?: unknown }).window = saved;
    }
    await settle();
    expect((await live.log()).requests).toEqual([]);
  });
});

describe("useAgent hydrating a server render", () => {
  it("hydrates a new chat whose unsent message the page kept without a mismatch, and shows the message right after", async () => {
    const storage = new Map<string, string>();
    const outboxStorage = {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
      removeItem: (key: string) => void storage.delete(key),
    };
    function Kept({ storage }: { storage?: typeof outboxStorage }) {
      const agent = useAgent({ url: "http://127.0.0.1:9/api/agent", ...(storage ? { outboxStorage: storage } : {}) });
      return (
        <main>
          {agent.outbox.map((message) => (
            <article key={message.key} data-state={message.status}>
              {message.text}
            </article>
          ))}
        </main>
      );
    }
    const html = renderToString(<Kept />); // a server has no storage
    storage.set("hitl-kit:outbox:new", JSON.stringify({ messages: [{ key: "k_1", text: "first words" }] }));
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.append(container);
    const recoverable: unknown[] = [];
    const root = hydrateRoot(container, <Kept storage={outboxStorage} />, {
      onRecoverableError: (error) => recoverable.push(error),
    });
    await waitFor(() => expect(container.querySelector("article")?.textContent).toBe("first words"));
    expect(recoverable).toEqual([]);
    root.unmount();
    container.remove();
  });
});
