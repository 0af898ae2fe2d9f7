import { Chat, expect, test } from "./fixtures.js";

test("two browsers never see each other's chats, and a link to another's chat shows nothing of it", async ({
  chat,
  demo,
  browser,
}) => {
  await chat.send("refund 1500");
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  const chats = chat.page.getByRole("navigation", { name: "Chats" });
  await expect(chats.getByRole("link", { name: /refund 1500/ })).toBeVisible();
  const link = chat.page.url();

  const stranger = await browser.newContext(); // another person: another cookie jar
  try {
    const page = await stranger.newPage();
    await page.goto(demo.url);
    const other = new Chat(page);
    await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
    await other.send("hello");
    await expect(other.conversation).toContainText("poster");
    await expect(page.getByRole("navigation", { name: "Chats" }).getByRole("link")).toHaveCount(1);
    await expect(page.getByRole("navigation", { name: "Chats" })).not.toContainText("refund 1500");

    await page.goto(link);
    await page.reload();
    await expect(page.getByRole("alert")).toContainText("This chat does not exist");
    await expect(page.getByRole("log", { name: "Conversation" })).toHaveCount(0);
  } finally {
    await stranger.close();
  }
  // The owner's approval is untouched.
  await chat.widget("refund_charge").getByRole("button", { name: "Refund", exact: true }).click();
  await expect(chat.conversation).toContainText("Refunded 1500.00");
});

test("a malformed #session= link shows a clear message and starts a new chat", async ({ demo, page }) => {
  await page.goto(`${demo.url}/#session=%E0%A4%A`);
  await expect(page.getByRole("status").filter({ hasText: "is not valid" })).toContainText("so a new chat was started");
  const chat = new Chat(page);
  await expect.poll(() => chat.sessionId()).toMatch(/^ses_/);
  await chat.send("hello");
  await expect(chat.conversation).toContainText("poster");
  await chat.screenshot("malformed-link");
});

test("deleting the open chat from the sidebar removes it and starts a new one", async ({ chat, demo, page }) => {
  await chat.send("Make a poster for the spring fair");
  await expect(chat.widget("pick_template")).toHaveAttribute("data-state", "pending");
  const deleted = chat.sessionId();
  const chats = page.getByRole("navigation", { name: "Chats" });
  page.once("dialog", (dialog) => void dialog.accept());
  await chats.getByRole("button", { name: /Delete Make a poster/ }).click();
  await expect(chats.getByRole("link", { name: /Make a poster/ })).toHaveCount(0);
  await expect.poll(() => chat.sessionId()).not.toBe(deleted);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  const gone = await page.request.get(`${demo.url}/api/agent/sessions/${deleted}`);
  expect(gone.status()).toBe(404);
});
