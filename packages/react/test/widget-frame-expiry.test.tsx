import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WidgetFrame, type WidgetFrameState, WidgetTextsProvider } from "../src/index.js";

const now = new Date("2026-11-27T10:00:00Z");
const inMinutes = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();

beforeEach(() => {
  vi.useFakeTimers({ now });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Frame({ expiresAt, state = { status: "pending" } }: { expiresAt?: string; state?: WidgetFrameState }) {
  return (
    <WidgetFrame
      {...state}
      request={{ toolName: "pick_colour", prompt: "Which colour?", ...(expiresAt ? { expiresAt } : {}) }}
      autoFocus={false}
    >
      <button type="button">Red</button>
    </WidgetFrame>
  );
}

const liveRegion = () => document.querySelector<HTMLElement>(".hitl-widget__expiry [aria-live='polite']");

describe("WidgetFrame's expiry", () => {
  it("shows by when to answer, in local time, in a <time dateTime>", () => {
    const expiresAt = inMinutes(30);
    render(<Frame expiresAt={expiresAt} />);
    const time = document.querySelector("time");
    const local = new Intl.DateTimeFormat(undefined, { timeStyle: "short" }).format(new Date(expiresAt));
    expect(time?.getAttribute("datetime")).toBe(expiresAt);
    expect(time?.textContent).toBe(local);
    expect(time?.parentElement?.textContent).toBe(`Answer by ${local}`);
    // Said with the request's name when focus comes in, not only once little time is left.
    expect(screen.getByRole("region", { name: "Which colour?", description: `Answer by ${local}` })).toBeTruthy();
  });

  it("gives the date too when the request expires on another day", () => {
    const expiresAt = inMinutes(3 * 24 * 60);
    render(<Frame expiresAt={expiresAt} />);
    const local = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
    expect(document.querySelector("time")?.textContent).toBe(local.format(new Date(expiresAt)));
  });

  it("says once, politely, that little time is left, shortly before it runs out", () => {
    render(<Frame expiresAt={inMinutes(5)} />);
    const region = liveRegion()!;
    expect(region.textContent).toBe("");
    const changes = new MutationObserver(() => {});
    changes.observe(region, {
      childList: true,
      characterData: true,
      subtree: true,
    });
    act(() => vi.advanceTimersByTime(2 * 60_000 + 59_000));
    expect(region.textContent).toBe("");
    act(() => vi.advanceTimersByTime(1_000));
    expect(region.textContent?.trim()).toBe("Less than 2 minutes left to answer.");
    act(() => vi.advanceTimersByTime(59_000));
    expect(changes.takeRecords().length).toBe(1); // one announcement, not one a second
  });

  it("says once that the time has run out while the request is still open, no longer that little is left", () => {
    render(<Frame expiresAt={inMinutes(1)} />);
    act(() => vi.advanceTimersByTime(59_999));
    expect(liveRegion()?.textContent?.trim()).toBe("Less than 2 minutes left to answer.");
    act(() => vi.advanceTimersByTime(1));
    expect(liveRegion()?.textContent?.trim()).toBe("The time to answer has run out.");
    expect(document.querySelector<HTMLElement>(".hitl-widget__expiry")?.dataset.state).toBe("due");
  });

  it("says at once that the time has run out when the request appears past its deadline", () => {
    render(<Frame expiresAt={inMinutes(-1)} />);
    act(() => vi.advanceTimersByTime(0));
    expect(liveRegion()?.textContent?.trim()).toBe("The time to answer has run out.");
  });

  it("says it at once when the request appears with little time left", () => {
    render(<Frame expiresAt={inMinutes(1)} />);
    act(() => vi.advanceTimersByTime(0));
    expect(liveRegion()?.textContent?.trim()).toBe("Less than 2 minutes left to answer.");
  });

  it("shows nothing without an expiry, or once the request is settled", () => {
    const { rerender } = render(<Frame />);
    expect(document.querySelector(".hitl-widget__expiry")).toBeNull();
    rerender(<Frame expiresAt={inMinutes(5)} state={{ status: "expired", resolution: { action: "expire" } }} />);
    expect(document.querySelector(".hitl-widget__expiry")).toBeNull();
  });

  it("speaks the app's language", () => {
    const expiresAt = inMinutes(1);
    render(
      <WidgetTextsProvider
        value={{
          answerBy: (time) => `Répondez avant ${time}`,
          deadline: (date) => `${date.getUTCHours()} h ${String(date.getUTCMinutes()).padStart(2, "0")}`,
          expiresSoon: (minutes) => `Il reste moins de ${minutes} minutes.`,
        }}
      >
        <Frame expiresAt={expiresAt} />
      </WidgetTextsProvider>,
    );
    act(() => vi.advanceTimersByTime(0));
    expect(document.querySelector("time")?.textContent).toBe("10 h 01");
    expect(screen.getByText(/Répondez avant/).textContent).toBe("Répondez avant 10 h 01 Il reste moins de 2 minutes.");
  });
});
