import { cleanup, render, screen, within } from "@testing-library/react";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WidgetFrame, type WidgetFrameState, WidgetTextsProvider } from "../src/index.js";

afterEach(cleanup);

const request = { toolName: "pick_colour", prompt: "Which colour?" };

const states: Record<"pending" | "resolved" | "declined" | "expired", WidgetFrameState> = {
  pending: { status: "pending" },
  resolved: { status: "resolved", resolution: { action: "accept", value: { answer: "Red" } } },
  declined: { status: "declined", resolution: { action: "decline" } },
  expired: { status: "expired", resolution: { action: "expire" } },
};

function Frame({ state, autoFocus = false }: { state: WidgetFrameState; autoFocus?: "control" | false }) {
  return (
    <>
      <WidgetFrame {...state} request={request} autoFocus={autoFocus}>
        <button type="button">Red</button>
      </WidgetFrame>
      <button type="button">Elsewhere</button>
    </>
  );
}

describe("WidgetFrame focus", () => {
  it.each(["resolved", "declined", "expired"] as const)(
    "keeps focus in the widget, on its frame, when the controls give way to the outcome (%s)",
    (status) => {
      const { rerender } = render(<Frame state={states.pending} />);
      screen.getByRole("button", { name: "Red" }).focus();
      rerender(<Frame state={states[status]} />);
      expect(document.activeElement).toBe(screen.getByRole("region", { name: "Which colour?" }));
    },
  );

  it("leaves focus where the person moved it, outside the widget", () => {
    const { rerender } = render(<Frame state={states.pending} />);
    screen.getByRole("button", { name: "Red" }).focus();
    screen.getByRole("button", { name: "Elsewhere" }).focus();
    rerender(<Frame state={states.resolved} />);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Elsewhere" }));
  });

  it("does not take focus back after the person clicked away from the widget", () => {
    const { rerender } = render(<Frame state={states.pending} />);
    const red = screen.getByRole("button", { name: "Red" });
    red.focus();
    red.blur();
    rerender(<Frame state={states.resolved} />);
    expect(document.activeElement).toBe(document.body);
  });

  it("does not take focus when it never had it", () => {
    const { rerender } = render(<Frame state={states.pending} />);
    rerender(<Frame state={states.resolved} />);
    expect(document.activeElement).toBe(document.body);
  });
});

describe("WidgetFrame focus when it appears", () => {
  // happy-dom lays nothing out: the widget is placed by hand, `widgetTop` px down the window.
  let widgetTop = 0;
  const layout = vi.spyOn(HTMLElement.prototype, "getBoundingClientRect");
  beforeEach(() => {
    layout.mockImplementation(function (this: HTMLElement) {
      return this.hasAttribute("data-hitl-widget") ? new DOMRect(0, widgetTop, 600, 200) : new DOMRect();
    });
  });
  afterAll(() => layout.mockRestore());

  function scrollTo(top: number) {
    widgetTop = top;
    document.body.dispatchEvent(new Event("scroll"));
  }

  const red = () => screen.getByRole("button", { name: "Red" });

  it("takes focus, scrolling it into view, when it appears at the end of what the person sees", () => {
    widgetTop = window.innerHeight + 20; // just below the fold: the chat has not followed it yet
    const focus = vi.spyOn(HTMLElement.prototype, "focus");
    render(<Frame state={states.pending} autoFocus="control" />);
    expect(document.activeElement).toBe(red());
    expect(focus).toHaveBeenCalledWith({ preventScroll: false });
    focus.mockRestore();
  });

  it("waits, without scrolling, while the person reads earlier messages, and takes focus once they come to it", () => {
    widgetTop = window.innerHeight + 2000;
    const focus = vi.spyOn(HTMLElement.prototype, "focus");
    render(<Frame state={states.pending} autoFocus="control" />);
    expect(document.activeElement).toBe(document.body);
    expect(focus).not.toHaveBeenCalled();
    scrollTo(window.innerHeight - 50); // its top edge shows: not yet looked at
    expect(document.activeElement).toBe(document.body);
    scrollTo(window.innerHeight - 300);
    expect(document.activeElement).toBe(red());
    expect(focus).toHaveBeenCalledWith({ preventScroll: true });
    focus.mockRestore();
  });

  function Two({ first, second }: { first: WidgetFrameState; second?: WidgetFrameState }) {
    return (
      <>
        <WidgetFrame {...first} request={request}>
          <button type="button">Red</button>
        </WidgetFrame>
        {second ? (
          <WidgetFrame {...second} request={{ toolName: "pick_size", prompt: "Which size?" }}>
            <button type="button">Large</button>
          </WidgetFrame>
        ) : null}
      </>
    );
  }

  it("takes focus from a widget that was answered, whose frame kept it", () => {
    widgetTop = 0;
    const { rerender } = render(<Two first={states.pending} />);
    expect(document.activeElement).toBe(red());
    rerender(<Two first={states.resolved} />);
    expect(document.activeElement).toBe(screen.getByRole("region", { name: "Which colour?" }));
    rerender(<Two first={states.resolved} second={states.pending} />);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Large" }));
  });

  it("leaves focus in the first of parallel requests while it is open", () => {
    widgetTop = 0;
    render(<Two first={states.pending} second={states.pending} />);
    expect(document.activeElement).toBe(red());
  });

  it("does not take focus when it comes on screen already settled, or while the person types elsewhere", () => {
    widgetTop = window.innerHeight + 2000;
    const { rerender } = render(<Frame state={states.pending} autoFocus="control" />);
    rerender(<Frame state={states.resolved} autoFocus="control" />);
    scrollTo(100);
    expect(document.activeElement).toBe(document.body);
    cleanup();

    widgetTop = window.innerHeight + 2000;
    render(
      <>
        <input aria-label="Message" />
        <Frame state={states.pending} autoFocus="control" />
      </>,
    );
    const message = screen.getByRole("textbox", { name: "Message" });
    message.focus();
    scrollTo(100);
    expect(document.activeElement).toBe(message);
  });
});

describe("WidgetFrame in a chat's log", () => {
  it("keeps its content out of the log's announcements; its badge still announces itself", () => {
    render(
      <div role="log" aria-live="polite">
        <Frame state={states.pending} />
      </div>,
    );
    const frame = screen.getByRole("region", { name: "Which colour?" });
    // The nearest live region decides what a change is read by: for the widget's words, the frame, which is off.
    for (const part of [screen.getByText("Which colour?"), screen.getByRole("button", { name: "Red" })]) {
      expect(part.closest("[aria-live]")).toBe(frame);
    }
    expect(frame.getAttribute("aria-live")).toBe("off");
    expect(within(frame).getByRole("status").textContent).toBe("Waiting for you");
  });
});

describe("WidgetFrame errors", () => {
  it("says a refused answer does not fit in plain words and lists each issue once, not the server's summary", () => {
    const issue = { path: ["colour"], message: "Choose one of the options." };
    const message = `The answer does not fit the answer schema of pick_colour (colour: ${issue.message}).`;
    render(<Frame state={{ status: "error", error: { code: "invalid_answer", message, issues: [issue] } }} />);
    const alert = screen.getByRole("alert");
    expect(alert.querySelector("p")?.textContent).toBe(
      "The answer does not fit what was asked. Check it, then send it again.",
    );
    expect(screen.getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "colour: Choose one of the options.",
    ]);
    expect(alert.textContent).not.toContain("pick_colour");
  });

  it("says why a request was cancelled when the server gave a reason", () => {
    const reason = "The tool ran out of time (30 s) before the answer came.";
    const { rerender } = render(<Frame state={{ status: "cancelled", resolution: { action: "cancel", reason } }} />);
    const outcome = () => screen.getByRole("region", { name: "Which colour?" }).querySelector(".hitl-widget__outcome");
    expect(outcome()?.textContent).toBe(`The request was cancelled without an answer.${reason}`);
    rerender(<Frame state={{ status: "cancelled", resolution: { action: "cancel" } }} />);
    expect(outcome()?.textContent).toBe("The request was cancelled without an answer.");
  });

  it("says the server's reason in the app's words for its code, and the server's English for a code it has no words for", () => {
    const reason = "The person sent a new message instead of answering.";
    const cancelled: WidgetFrameState = {
      status: "cancelled",
      resolution: { action: "cancel", reason, reasonCode: "new_message" },
    };
    const { rerender } = render(
      <WidgetTextsProvider value={{ reasons: { new_message: "Sie haben stattdessen eine Nachricht geschrieben." } }}>
        <Frame state={cancelled} />
      </WidgetTextsProvider>,
    );
    expect(screen.getByText("Sie haben stattdessen eine Nachricht geschrieben.")).toBeTruthy();
    expect(screen.queryByText(reason)).toBeNull();
    rerender(
      <WidgetTextsProvider value={{ reasons: { stopped: "Angehalten." } }}>
        <Frame state={cancelled} />
      </WidgetTextsProvider>,
    );
    expect(screen.getByText(reason)).toBeTruthy();
  });

  it("gives a reason its own direction: an English reason on a right-to-left page reads left to right", () => {
    const reason = "Too much money!";
    const { rerender } = render(<Frame state={{ status: "cancelled", resolution: { action: "cancel", reason } }} />);
    expect(screen.getByText(reason).getAttribute("dir")).toBe("auto");
    rerender(<Frame state={{ status: "declined", resolution: { action: "decline", reason } }} />);
    expect(screen.getByText(`“${reason}”`).getAttribute("dir")).toBe("auto");
  });

  it("shows a failure without issues in plain words", () => {
    render(<Frame state={{ status: "error", error: { code: "network", message: "Could not reach http://x/." } }} />);
    expect(screen.getByRole("alert").textContent).toBe(
      "Could not reach the server. Check your connection, then try again.",
    );
  });
});
