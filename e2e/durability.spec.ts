import { expect, test } from "./fixtures.js";

test("a reload while a picker is parked brings it back, and answering it resumes the turn", async ({ chat, page }) => {
  await chat.send("Make a poster for the spring fair");
  await expect(chat.widget("pick_template")).toHaveAttribute("data-state", "pending");
  await page.reload();

  const template = chat.widget("pick_template");
  await expect(template).toHaveAttribute("data-state", "pending");
  await template.getByRole("radio", { name: /Bold/ }).click();
  await template.getByRole("button", { name: "Use template" }).click();
  await expect(chat.widget("pick_aspect_ratio")).toHaveAttribute("data-state", "pending");
  await expect(template).toHaveAttribute("data-state", "resolved");
});

test("a server restart while parked loses nothing: the approval is back and answering it completes the turn", async ({
  chat,
  demo,
}) => {
  await chat.send("refund 1500");
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  await demo.restart();

  // The page reconnects by itself; the request survived in the store.
  const approval = chat.widget("refund_charge");
  await expect(chat.page.locator(".chat-connection")).toHaveAttribute("data-state", "open", { timeout: 20_000 });
  await approval.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(approval).toHaveAttribute("data-state", "resolved");
  await expect(chat.conversation).toContainText("Refunded 1500.00");
  await chat.idle();
});

test("two tabs on one session: an answer in one shows resolved in the other", async ({ chat, context }) => {
  await chat.send("refund 1500");
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");

  const other = await context.newPage();
  await other.goto(chat.page.url());
  const there = other.locator('[data-tool="refund_charge"] [data-state]').first();
  await expect(there).toHaveAttribute("data-state", "pending");

  await chat.widget("refund_charge").getByRole("button", { name: "Refund", exact: true }).click();
  await expect(there).toHaveAttribute("data-state", "resolved");
  await expect(other.getByRole("log", { name: "Conversation" })).toContainText("Refunded 1500.00");
  await other.screenshot({ path: "e2e/screenshots/second-tab.png" });
});

test.describe("with requests that expire", () => {
  test.use({ demoEnv: { HITL_EXPIRE_AFTER_MS: "1500" } });

  test("a request that expires shows as expired and the model moves on", async ({ chat }) => {
    await chat.send("Make a poster for the spring fair");
    const template = chat.widget("pick_template");
    await expect(template).toHaveAttribute("data-state", "pending");
    await expect(template).toHaveAttribute("data-state", "expired", { timeout: 15_000 });
    await chat.idle();
    await chat.screenshot("expired");
  });
});
