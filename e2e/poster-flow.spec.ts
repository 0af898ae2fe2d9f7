import { expect, test } from "./fixtures.js";

test("the poster flow, end to end by clicking", async ({ chat, page }) => {
  await chat.send("Make a poster for the spring fair");

  const template = chat.widget("pick_template");
  await expect(template).toHaveAttribute("data-state", "pending");
  await template.getByRole("radio", { name: /Calm/ }).click();
  await chat.screenshot("poster-template");
  await template.getByRole("button", { name: "Use template" }).click();
  await expect(template).toHaveAttribute("data-state", "resolved");

  const ratio = chat.widget("pick_aspect_ratio");
  await ratio.getByRole("radio", { name: "4:5" }).click();
  await ratio.getByRole("button", { name: "Use ratio" }).click();
  await expect(ratio).toHaveAttribute("data-state", "resolved");

  const media = chat.widget("pick_media");
  await media.getByRole("checkbox", { name: /Mountains/ }).click();
  await media.getByRole("checkbox", { name: /Aurora/ }).click();
  await chat.screenshot("poster-media");
  await media.getByRole("button", { name: "Use pictures" }).click();
  await expect(media).toHaveAttribute("data-state", "resolved");

  const publish = chat.widget("publish_poster");
  await expect(publish).toHaveAttribute("data-state", "pending");
  await publish.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(chat.conversation).toContainText("Published");
  await chat.idle();
  await expect(publish).toHaveAttribute("data-state", "resolved");
  await chat.screenshot("poster-published");

  // Every answered widget stays in the transcript after a reload, showing what was chosen.
  await page.reload();
  await expect(chat.widget("pick_template")).toHaveAttribute("data-state", "resolved");
  await expect(chat.widget("pick_template")).toContainText("Calm");
});

test("a denial ends the refund with the person's reason", async ({ chat }) => {
  await chat.send("refund 1500");
  const approval = chat.widget("refund_charge");
  await expect(approval).toHaveAttribute("data-state", "pending");
  await approval.getByRole("textbox", { name: /Reason/ }).fill("Check with finance first");
  await chat.screenshot("refund-approval");
  await approval.getByRole("button", { name: "Don't refund" }).click();
  await expect(approval).toHaveAttribute("data-state", "declined");
  await expect(chat.conversation).toContainText("no refund");
  await expect(chat.conversation).toContainText("Check with finance first");
  await chat.idle();
});

test("the form refuses a bad answer inline, then takes the fixed one", async ({ chat }) => {
  await chat.send("details");
  const form = chat.widget("collect_details");
  await form.getByRole("textbox", { name: /Your name/ }).fill("Ada");
  await form.getByRole("textbox", { name: /Email/ }).fill("not-an-email");
  await form.getByLabel(/Event date/).fill("2026-12-01");
  await form.getByRole("radio", { name: "team" }).check();
  await form.getByRole("spinbutton", { name: /Seats/ }).fill("900");
  await form.getByRole("button", { name: "Send details" }).click();
  await expect(form.getByRole("textbox", { name: /Email/ })).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByRole("spinbutton", { name: /Seats/ })).toHaveAttribute("aria-invalid", "true");
  await expect(form).toHaveAttribute("data-state", "pending");
  await chat.screenshot("form-errors");

  await form.getByRole("textbox", { name: /Email/ }).fill("ada@example.com");
  await form.getByRole("spinbutton", { name: /Seats/ }).fill("12");
  await form.getByRole("button", { name: "Send details" }).click();
  await expect(form).toHaveAttribute("data-state", "resolved");
  await expect(chat.conversation).toContainText("Thanks, Ada");
});

test("a double click on Send sends the message once and stops nothing", async ({ chat, page }) => {
  await page.getByRole("textbox", { name: "Message" }).fill("refund 1500");
  // The second click lands where Stop has just taken Send's place.
  await page.getByRole("button", { name: "Send" }).dblclick();
  const approval = chat.widget("refund_charge");
  await expect(approval).toHaveAttribute("data-state", "pending");
  await expect(page.getByRole("article", { name: "You" })).toHaveCount(1);
  await approval.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(chat.conversation).toContainText("Refunded 1500.00");
});
