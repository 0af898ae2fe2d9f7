import { expect, test } from "./fixtures.js";

/**
 * The demo's poster flow through the AI SDK's `useChat` with `hitlChatTransport` (the
 * `/use-chat/` page): the same server, tools and registered widgets, and a reload while a
 * request is parked.
 */

test("the poster flow through useChat, with a reload while parked", async ({ chat, page, demo }) => {
  await page.goto(`${demo.url}/use-chat/`);
  await expect(page).toHaveURL(/#chat=/);
  await chat.send("Make a poster for the spring fair");

  const template = chat.widget("pick_template");
  await expect(template).toHaveAttribute("data-state", "pending");
  // Announced once by its question, beside the log (the widget itself is not read by the log).
  const announcer = page.locator('.chat-panel > [role="status"]');
  await expect(announcer).toHaveText("Waiting for you: Choose a template for your poster");
  await page.reload();

  // After the reload the chat starts from the server's history and shows the same open request.
  await expect(page.getByRole("article", { name: "You" })).toContainText("Make a poster for the spring fair");
  await expect(template).toHaveAttribute("data-state", "pending");
  await template.getByRole("radio", { name: /Calm/ }).click();
  await template.getByRole("button", { name: "Use template" }).click();
  await expect(template).toHaveAttribute("data-state", "resolved");

  const ratio = chat.widget("pick_aspect_ratio");
  await expect(announcer).toHaveText("Waiting for you: Which shape should the poster have?");
  await ratio.getByRole("radio", { name: "4:5" }).click();
  await ratio.getByRole("button", { name: "Use ratio" }).click();
  await expect(ratio).toHaveAttribute("data-state", "resolved");

  const media = chat.widget("pick_media");
  await media.getByRole("checkbox", { name: /Mountains/ }).click();
  await media.getByRole("checkbox", { name: /Aurora/ }).click();
  await media.getByRole("button", { name: "Use pictures" }).click();
  await expect(media).toHaveAttribute("data-state", "resolved");

  const publish = chat.widget("publish_poster");
  await expect(publish).toHaveAttribute("data-state", "pending");
  await page.reload();
  await expect(publish).toHaveAttribute("data-state", "pending");
  await publish.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(chat.conversation).toContainText("Published");
  await expect(publish).toHaveAttribute("data-state", "resolved");
  await expect(page.getByRole("main", { name: "Chat" })).toHaveAttribute("data-status", "ready");
  await chat.screenshot("use-chat-published");

  // The finished chat reloads as it ended: every widget shows what was chosen.
  await page.reload();
  await expect(chat.widget("pick_template")).toHaveAttribute("data-state", "resolved");
  await expect(chat.widget("publish_poster")).toHaveAttribute("data-state", "resolved");
  await expect(page.getByRole("alert")).toHaveCount(0);
});

test("through useChat, a denial reaches the model with its reason, after a server restart while parked", async ({
  chat,
  page,
  demo,
}) => {
  await page.goto(`${demo.url}/use-chat/`);
  await chat.send("refund 1500");
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  await demo.restart();
  await page.reload();

  const approval = chat.widget("refund_charge");
  await expect(approval).toHaveAttribute("data-state", "pending");
  await approval.getByRole("textbox", { name: /Reason/ }).fill("Check with finance first");
  await approval.getByRole("button", { name: "Don't refund" }).click();
  await expect(approval).toHaveAttribute("data-state", "declined");
  await expect(chat.conversation).toContainText("Check with finance first");
  await expect(page.getByRole("main", { name: "Chat" })).toHaveAttribute("data-status", "ready");
  await expect(page.getByRole("alert")).toHaveCount(0);
});

test("through useChat, a message sent instead of answering shows the open picker cancelled, in its own reply", async ({
  chat,
  page,
  demo,
}) => {
  await page.goto(`${demo.url}/use-chat/`);
  await chat.send("Make a poster for the spring fair");
  const template = chat.widget("pick_template");
  await expect(template).toHaveAttribute("data-state", "pending");
  await chat.send("actually, never mind");
  // The earlier reply's widget says what the server did, and takes no answer the server would refuse.
  await expect(template).toHaveAttribute("data-state", "cancelled");
  await expect(template).toContainText("The person sent a new message instead of answering.");
  await expect(template.getByRole("radio")).toHaveCount(0);
  await expect(page.getByRole("main", { name: "Chat" })).toHaveAttribute("data-status", "ready");
});

test.describe("with the scripted model's words 150 ms apart", () => {
  test.use({ demoEnv: { HITL_SCRIPTED_DELAY_MS: "150" } });

  test("Stop in a useChat app stops the reply on the server, not only on the page", async ({ chat, page, demo }) => {
    await page.goto(`${demo.url}/use-chat/`);
    await chat.send("hello");
    const reply = page.getByRole("article", { name: "Assistant" });
    await expect(reply).toContainText("scripted demo model");
    await page.getByRole("button", { name: "Stop" }).click();
    const panel = page.getByRole("main", { name: "Chat" });
    await expect(panel).toHaveAttribute("data-status", "ready");
    await expect(page.getByRole("button", { name: "Send" })).toBeVisible();

    // The server stopped the turn: its reply ends where the page's does, and grows no more.
    // hitlChatTransport keeps the chat's session in localStorage.
    const sessionId = await page.evaluate(
      () => Object.entries(localStorage).find(([key]) => key.startsWith("hitl-kit:ai-sdk:"))?.[1],
    );
    const snapshot = await (await page.request.get(`${demo.url}/api/agent/sessions/${sessionId}`)).json();
    expect(snapshot.status).toBe("idle");
    const serverText = snapshot.messages
      .at(-1)
      .parts.map((part: { text?: string }) => part.text ?? "")
      .join("");
    const pageText = (await reply.textContent()) ?? "";
    expect(serverText.length).toBeGreaterThan(0);
    expect(serverText).not.toContain("book a table");
    expect(pageText).toContain(serverText.trim());
    await page.waitForTimeout(1_000);
    expect((await reply.textContent()) ?? "").toBe(pageText);
  });
});
