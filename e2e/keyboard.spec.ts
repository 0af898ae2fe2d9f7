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
