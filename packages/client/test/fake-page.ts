import { afterEach, beforeEach, vi } from "vitest";

/**
 * A fake page for each test, as far as a connection listens to it: `window` for the
 * network, `document` for visibility (visible unless a test says otherwise). The
 * returned object holds the current test's.
 */
export function fakePage() {
  const page = {
    window: new EventTarget(),
    document: Object.assign(new EventTarget(), { visibilityState: "visible" }),
  };
  beforeEach(() => {
    page.window = new EventTarget();
    page.document = Object.assign(new EventTarget(), { visibilityState: "visible" });
    vi.stubGlobal("window", page.window);
    vi.stubGlobal("document", page.document);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  return page;
}
