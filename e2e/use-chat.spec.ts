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
  await page.reload();

  // After the reload the chat starts from the server's history and shows the same open request.
  await expect(page.getByRole("article", { name: "You" })).toContainText("Make a poster for the spring fair");
  await expect(template).toHaveAttribute("data-state", "pending");
  await template.getByRole("radio", { name: /Calm/ }).click();
  await template.getByRole("button", { name: "Use template" }).click();
  await expect(template).toHaveAttribute("data-state", "resolved");

  const ratio = chat.widget("pick_aspect_ratio");
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
