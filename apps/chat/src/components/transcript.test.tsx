import { createAgentClient, replayTransport } from "@hitl-kit/client";
import { AgentProvider } from "@hitl-kit/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { startChat } from "../../test/chat-harness.js";
import { chatWidgets } from "../widgets/chat-widgets.js";
import { Transcript } from "./transcript.js";

afterEach(cleanup);

/** A poster session recorded from the real runtime: the template answered, the ratio picker open. */
async function recordPosterSession() {
  // happy-dom's Request, like a browser's, carries no Cookie header set by hand: name the one person instead.
  const chat = startChat({ identify: () => "recorder" });
  const id = await chat.session();
  await chat.send(id, "make a poster for the spring fair");
  await chat.answer(id, { action: "accept", value: { templateId: "retro" } });
  const events = await chat.events(id);
  await chat.close();
  return events;
}

describe("Transcript", () => {
  it("renders a replayed session with its widgets inline, answered ones showing the choice", async () => {
    const replay = replayTransport(await recordPosterSession());
    replay.playAll();
    const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <AgentProvider client={client}>
          <Transcript widgets={chatWidgets} />
        </AgentProvider>
      </QueryClientProvider>,
    );
    await act(() => client.ready);

    const log = screen.getByRole("log", { name: "Conversation" });
    expect(log.dataset.state).toBe("waiting");
    const messages = within(log).getAllByRole("article");
    expect(messages.map((m) => m.getAttribute("aria-label"))).toEqual(["You", "Assistant", "Assistant"]);
    expect(messages[0]?.textContent).toBe("make a poster for the spring fair");

    const widgets = log.querySelectorAll<HTMLElement>("[data-hitl-widget]");
    expect([...widgets].map((w) => w.dataset.state)).toEqual(["resolved", "pending"]);
    expect(within(widgets[0]!).getByText("Retro")).toBeTruthy();
    expect(within(widgets[1]!).getByRole("button", { name: "Use ratio" })).toBeTruthy();
  });
});
