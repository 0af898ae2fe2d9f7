import { expect, test } from "./fixtures.js";

/** The demo on a 320 px phone with touch, as the mobile trial used it. */
test.use({ viewport: { width: 320, height: 700 }, isMobile: true, hasTouch: true });

const overflow = (page: import("@playwright/test").Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("the header fits at 320 px, whatever the connection says", async ({ chat, page }) => {
  await chat.send("hello");
  await expect(chat.conversation).toContainText("scripted demo model");
  const header = page.locator(".chat-panel__header");
  // The longest status the header shows, as when the network is gone.
  await page.locator(".chat-connection").evaluate((badge) => {
    badge.lastChild!.textContent = "No network · reconnects when it is back";
  });
  expect(await header.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
  expect(await overflow(page)).toBe(0);
  const box = await header.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(320);
});

test("the text follows the browser's font size (rem, not px)", async ({ chat: _, page }) => {
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  await page.addStyleTag({ content: "html { font-size: 24px; }" });
  expect(await page.evaluate(() => getComputedStyle(document.body).fontSize)).toBe("22.5px");
});

test.describe("with reduced motion", () => {
  test.use({ reducedMotion: "reduce" });

  test("the chats drawer opens without sliding", async ({ chat: _, page }) => {
    await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
    await page.getByRole("button", { name: "Chats" }).click();
    const drawer = page.locator(".chat-app__sidebar");
    await expect(drawer).toBeVisible();
    expect(await drawer.evaluate((el) => getComputedStyle(el).transitionDuration)).toBe("0s");
  });
});

test("touch targets of the chrome are at least 44 px", async ({ chat: _, page }) => {
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  for (const name of ["Chats", "Send"]) {
    const box = await page.getByRole("button", { name, exact: true }).boundingBox();
    expect(box?.height, name).toBeGreaterThanOrEqual(44);
  }
});
