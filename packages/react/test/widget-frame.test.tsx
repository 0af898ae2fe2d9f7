import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { WidgetFrame, type WidgetFrameState } from "../src/index.js";

afterEach(cleanup);

const request = { toolName: "pick_colour", prompt: "Which colour?" };

const states: Record<"pending" | "resolved" | "declined" | "expired", WidgetFrameState> = {
  pending: { status: "pending" },
  resolved: { status: "resolved", resolution: { action: "accept", value: { answer: "Red" } } },
  declined: { status: "declined", resolution: { action: "decline" } },
  expired: { status: "expired", resolution: { action: "expire" } },
};

function Frame({ state }: { state: WidgetFrameState }) {
  return (
    <>
      <WidgetFrame {...state} request={request} autoFocus={false}>
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
