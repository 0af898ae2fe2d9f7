import { expect, test } from "./fixtures.js";

test("a suggestion of the welcome, once sent, leaves focus in the message box", async ({ chat, page }) => {
  const welcome = page.getByRole("region", { name: "Put a person in the loop" });
  const suggestion = welcome.getByRole("button", { name: /Refund 250/ });
  await suggestion.focus();
  await page.keyboard.press("Enter");
  await expect(welcome).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeFocused();
  await expect(chat.conversation).toContainText("Refunded 250.00");
  await expect(page.getByRole("textbox", { name: "Message" })).toBeFocused();
});

test.describe("with the scripted model's words 150 ms apart", () => {
  test.use({ demoEnv: { HITL_SCRIPTED_DELAY_MS: "150" } });

  test("Stop by keyboard leaves focus in the message box, through Stopping… and back to Send", async ({
    chat,
    page,
  }) => {
    await chat.send("make a poster for the spring fair");
    const stop = page.getByRole("button", { name: "Stop", exact: true });
    await stop.focus();
    await page.keyboard.press("Enter");
    const box = page.getByRole("textbox", { name: "Message" });
    await expect(box).toBeFocused();
    await chat.idle();
    await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible();
    await expect(box).toBeFocused();
    await page.keyboard.type("hello");
    await expect(box).toHaveValue("hello");
  });
});

test.describe("on a narrow screen (200% zoom)", () => {
  test.use({ viewport: { width: 640, height: 820 } });

  test("the chats drawer takes focus, keeps Tab inside it, and Escape closes it back to ☰", async ({ chat, page }) => {
    await chat.send("hello");
    await expect(chat.conversation).toContainText("scripted demo model");
    const menu = page.getByRole("button", { name: "Chats" });
    await menu.focus();
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("navigation", { name: "Chats" });
    await expect(drawer.getByRole("button", { name: "New chat" })).toBeFocused();
    // Tab goes through the drawer, never into the chat hidden behind it.
    for (let step = 0; step < 4; step++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest("main") ?? null)).toBeNull();
    }
    await chat.screenshot("narrow-drawer-open");
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(menu).toBeFocused();
    await expect(menu).toHaveAttribute("aria-expanded", "false");
  });
});
