import type { SessionSnapshot } from "@hitl-kit/protocol";
import { startCuttingProxy } from "./cutting-proxy.js";
import { expect, test } from "./fixtures.js";

test("a network drop mid-stream reconnects with no lost or doubled text", async ({ demo, page }) => {
  const proxy = await startCuttingProxy(demo.url);
  try {
    await page.goto(proxy.url);
    const states: string[] = [];
    await page.exposeFunction("recordConnection", (state: string) => states.push(state));
    await expect(page.locator(".chat-connection")).toHaveAttribute("data-state", "open");
    await page.evaluate(() => {
      const badge = document.querySelector(".chat-connection")!;
      const record = (window as unknown as { recordConnection: (s: string) => void }).recordConnection;
      // Every state the badge held, even one replaced before the observer ran.
      new MutationObserver((mutations) => {
        for (const mutation of mutations) record(mutation.oldValue ?? "");
        record(badge.getAttribute("data-state") ?? "");
      }).observe(badge, { attributeFilter: ["data-state"], attributeOldValue: true });
    });

    await page.getByRole("textbox", { name: "Message" }).fill("Make a poster for the spring fair");
    await page.getByRole("button", { name: "Send" }).click();
    const reply = page.getByRole("article", { name: "Assistant" }).first();
    await expect(reply).not.toBeEmpty();
    proxy.cut(); // mid-text: the reply streams a word every 20 ms

    await expect(page.locator('[data-tool="pick_template"] [data-state]').first()).toHaveAttribute(
      "data-state",
      "pending",
    );
    expect(states).toContain("reconnecting");

    const sessionId = /session=([^&]+)/.exec(new URL(page.url()).hash)?.[1];
    // The session is the browser's: ask with its identity cookie.
    const response = await page.request.get(`${demo.url}/api/agent/sessions/${sessionId}`);
    const snapshot = (await response.json()) as SessionSnapshot;
    const expected = snapshot.messages
      .filter((message) => message.role === "assistant")
      .flatMap((message) => message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])));
    const shown = await page.locator('article[data-role="assistant"] .chat-message__text').allInnerTexts();
    expect(shown.map((text) => text.trim())).toEqual(expected.map((text) => text.trim()));
  } finally {
    await proxy.close();
  }
});
