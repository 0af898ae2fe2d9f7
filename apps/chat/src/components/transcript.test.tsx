import { replayTransport } from "@hitl-kit/client";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { startChat } from "../../test/chat-harness.js";
import { renderReplayedTranscript } from "../../test/replayed-transcript.js";

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

/** The seq of the nth `input.requested` event. */
function requestedSeq(events: ProtocolEvent[], nth: number): number {
  return events.filter((event) => event.type === "input.requested")[nth]!.seq;
}

/** What a live region around `element` would do with a change to it: the nearest `aria-live`, implicit ones included. */
function liveness(element: Element): string | null {
  const root = element.closest('[aria-live], [role="log"], [role="status"], [role="alert"]');
  if (!root) return null;
  return root.getAttribute("aria-live") ?? (root.getAttribute("role") === "alert" ? "assertive" : "polite");
}

describe("Transcript", () => {
  it("renders a replayed session with its widgets inline, answered ones showing the choice", async () => {
    const replay = replayTransport(await recordPosterSession());
    replay.playAll();
    await renderReplayedTranscript(replay);

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

  it("announces a new request by its question alone, once, and keeps the widget out of the log's announcements", async () => {
    const events = await recordPosterSession();
    const replay = replayTransport(events, { playedTo: requestedSeq(events, 0) });
    const { container } = await renderReplayedTranscript(replay);

    const announcer = container.querySelector('.chat-transcript-frame > [role="status"]');
    expect(announcer?.textContent).toBe("Waiting for you: Choose a template for your poster");
    const widget = container.querySelector("[data-hitl-widget]")!;
    // The log reads the assistant's words; none of the widget's own: its title, options and buttons.
    expect(liveness(screen.getByText("Let's make a poster", { exact: false }))).toBe("polite");
    for (const part of widget.querySelectorAll("p, label, button")) expect(liveness(part)).toBe("off");

    act(() => replay.playAll());
    await waitFor(() => expect(announcer?.textContent).toBe("Waiting for you: Which shape should the poster have?"));
  });
});
