import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FreeformAnswer } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** A device: whether its primary pointer is fine (a mouse, a trackpad) and its platform. */
function device(fine: boolean, platform: string) {
  vi.spyOn(window, "matchMedia").mockImplementation(
    (query) =>
      ({
        matches: query === "(pointer: fine)" ? fine : false,
        media: query,
        addEventListener: () => {},
        removeEventListener: () => {},
      }) as unknown as MediaQueryList,
  );
  vi.spyOn(navigator, "platform", "get").mockReturnValue(platform);
}

const count = () => document.querySelector(".hitl-counter")?.textContent;

describe("FreeformAnswer's shortcut hint", () => {
  it("says Ctrl+Enter where a keyboard is likely", () => {
    device(true, "Win32");
    render(<FreeformAnswer {...requestProps({})} />);
    expect(count()).toBe("0 characters · Ctrl+Enter to send");
  });

  it("says ⌘+Enter on Apple's platforms", () => {
    device(true, "MacIntel");
    render(<FreeformAnswer {...requestProps({})} />);
    expect(count()).toBe("0 characters · ⌘+Enter to send");
  });

  it("says nothing of keys on a phone (no fine pointer)", () => {
    device(false, "Linux armv8l");
    render(<FreeformAnswer {...requestProps({})} />);
    expect(count()).toBe("0 characters");
    expect(screen.getByLabelText("Your answer").getAttribute("aria-describedby")).toContain("-count");
  });
});
