import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.js";

// A reply a word every 0 ms, so 40 turns of history take a moment to build over HTTP.
test.use({ demoEnv: { HITL_SCRIPTED_DELAY_MS: "0" } });

/** Sends messages the way the page does (its cookie, its origin), each after the last turn ended. */
async function buildHistory(page: Page, url: string, sessionId: string, turns: number) {
  const api = `${url}/api/agent/sessions/${sessionId}`;
  for (let turn = 0; turn < turns; turn++) {
    const sent = await page.request.post(`${api}/messages`, {
      data: { text: `hello ${turn}` },
      headers: { origin: url },
    });
    expect(sent.status()).toBe(202);
    await expect.poll(async () => (await (await page.request.get(api)).json()).status).toBe("idle");
  }
}

/** A chat of 82 messages, reloaded: it opens at the newest 50, with "Show earlier messages" above them. */
async function openLongSession(page: Page, url: string) {
  await page.getByRole("textbox", { name: "Message" }).fill("hello");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(messages(page)).toHaveCount(2);
  const sessionId = /session=([^&]+)/.exec(new URL(page.url()).hash)![1]!;
  await buildHistory(page, url, sessionId, 40);
  await page.reload();
  await expect(page.getByRole("button", { name: "Show earlier messages" })).toBeVisible();
}

const messages = (page: Page) => page.getByRole("log", { name: "Conversation" }).getByRole("article");

/** Scrolls the conversation to its top with the mouse wheel, as a person reaching for the button does. */
async function wheelToTop(page: Page) {
  const log = page.getByRole("log", { name: "Conversation" });
  await page.mouse.move(640, 400);
  for (let step = 0; step < 10; step++) await page.mouse.wheel(0, -1000);
  await expect.poll(() => log.evaluate((element) => element.scrollTop)).toBe(0);
}

test("loading earlier messages keeps the message the person was reading in place", async ({ page, demo, chat }) => {
  await openLongSession(page, demo.url);
  await wheelToTop(page);
  const before = (await messages(page).first().boundingBox())!.y;
  await page.getByRole("button", { name: "Show earlier messages" }).click();
  await expect(messages(page)).toHaveCount(82);
  // The 32 loaded messages went above it: the one that was first is the 33rd now.
  const after = (await messages(page).nth(32).boundingBox())!.y;
  expect(Math.abs(after - before)).toBeLessThan(2);
  await chat.screenshot("long-history-earlier-loaded");
});

test("by keyboard, Show earlier messages keeps focus while more pages are left, then hands it to the first message", async ({
  page,
  demo,
  chat,
}) => {
  // Pages of 16: the 32 messages above the newest 50 take two loads.
  await page.route(
    (url) => url.searchParams.has("before"),
    (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set("limit", "16");
      return route.continue({ url: url.href });
    },
  );
  await openLongSession(page, demo.url);
  const earlier = page.getByRole("button", { name: "Show earlier messages" });
  await earlier.focus();
  await page.keyboard.press("Enter");
  await expect(messages(page)).toHaveCount(66);
  await expect(earlier).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(messages(page)).toHaveCount(82);
  await expect(earlier).toHaveCount(0);
  await expect(messages(page).first()).toBeFocused();
  await chat.screenshot("long-history-keyboard");
});

test("a message the server took before the newest page of history is not called Not sent after a reload", async ({
  page,
  demo,
  chat,
}) => {
  await chat.send("hello");
  await expect(messages(page)).toHaveCount(2);
  const sessionId = chat.sessionId();
  // The server takes "hello again", but neither its answer nor the event stream reaches the page.
  await page.route(/\/events/, (route) => route.abort("connectionreset"));
  await page.route(/\/messages$/, async (route) => {
    await route.fetch();
    await route.abort("connectionreset");
  });
  await page.reload();
  await chat.send("hello again");
  await expect(page.getByRole("article", { name: "You" }).last()).toContainText("Sending…");
  // The page closes before it learns, keeping the message in sessionStorage; the chat goes on elsewhere.
  await page.goto("about:blank");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await buildHistory(page, demo.url, sessionId, 26);

  // Back: the newest 50 messages do not reach back to it, so the page asks the server.
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  await page.route(/\/messages\?key=/, async (route) => {
    await answered;
    await route.continue();
  });
  await page.goto(`${demo.url}/#session=${sessionId}`);
  await expect(page.getByRole("button", { name: "Show earlier messages" })).toBeVisible();
  const kept = chat.conversation.getByRole("article", { name: "You" }).filter({ hasText: "hello again" });
  await expect(kept).toContainText("Checking whether it was sent…");
  await expect(kept).toHaveAttribute("data-state", "checking");
  await expect(chat.conversation.getByRole("alert")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible();
  await expect(kept.locator(".chat-outgoing")).toHaveCSS("opacity", "1"); // it shows after a second
  await chat.screenshot("kept-message-checking");
  answer();
  await expect(kept).toHaveCount(0);
  await expect
    .poll(() => page.evaluate((item) => sessionStorage.getItem(item), `hitl-kit:outbox:${sessionId}`))
    .toBeNull();
  await expect(chat.conversation.getByRole("alert")).toHaveCount(0);

  // It is in the history, once, where it was sent.
  await page.getByRole("button", { name: "Show earlier messages" }).click();
  await expect(page.getByRole("button", { name: "Show earlier messages" })).toHaveCount(0);
  await expect(kept).toHaveCount(1);
  await expect(kept).toHaveAttribute("data-state", "complete");
  const sent = await (await page.request.get(`${demo.url}/api/agent/sessions/${sessionId}?limit=200`)).json();
  expect(sent.messages.filter((message: { role: string }) => message.role === "user")).toHaveLength(28);
  await chat.screenshot("kept-message-cleared");
});

test.describe("while the person reads older messages", () => {
  // The chat fixture opens the demo in the page.
  test.beforeEach(async ({ page, demo, chat: _chat }) => {
    await openLongSession(page, demo.url);
    await wheelToTop(page);
  });

  test("a message they send comes into view, and so does its reply", async ({ page, chat }) => {
    await page.getByRole("textbox", { name: "Message" }).fill("refund 250");
    await page.keyboard.press("Enter");
    const log = page.getByRole("log", { name: "Conversation" });
    await expect(log.getByRole("article", { name: "You" }).filter({ hasText: "refund 250" })).toBeInViewport();
    await expect(chat.conversation).toContainText("Refunded 250.00");
    await chat.idle();
    await expect(messages(page).last()).toContainText("Refunded 250.00");
    await expect(messages(page).last()).toBeInViewport();
    await chat.screenshot("long-history-sent-while-reading");
  });

  test("a request that arrives waits for them, then takes focus where it is", async ({ page, demo, chat }) => {
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // The turn starts elsewhere (another tab of the person's): this page only sees its events.
    const sessionId = /session=([^&]+)/.exec(new URL(page.url()).hash)![1]!;
    const sent = await page.request.post(`${demo.url}/api/agent/sessions/${sessionId}/messages`, {
      data: { text: "refund 1500" },
      headers: { origin: demo.url },
    });
    expect(sent.status()).toBe(202);
    const card = page.locator(".hitl-approval-card");
    await expect(card).toHaveAttribute("data-state", "pending");
    const log = page.getByRole("log", { name: "Conversation" });
    // Neither scrolled down to it nor focused while the person is up there.
    await page.waitForTimeout(300);
    expect(await log.evaluate((element) => element.scrollTop)).toBe(0);
    await expect(page.locator("body")).toBeFocused();
    await page.mouse.move(640, 400);
    for (let step = 0; step < 10; step++) await page.mouse.wheel(0, 2000);
    await expect(card).toBeInViewport();
    await expect.poll(() => card.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    await chat.screenshot("long-history-request-while-reading");
  });
});
