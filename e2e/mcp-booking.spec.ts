import { expect, test } from "./fixtures.js";

test("an MCP server's elicitation is answered in the browser, after a reload, and the booking completes", async ({
  chat,
  page,
}) => {
  await chat.send("book a table");
  const form = chat.widget("book_table");
  await expect(form).toHaveAttribute("data-state", "pending");
  await expect(form).toContainText("How many seats at Nora, and on which day?");

  // The request lives on the server, not in the page: a reload brings it back.
  await page.reload();
  await expect(form).toHaveAttribute("data-state", "pending");

  // The form is drawn from the MCP server's requestedSchema and checks it before sending.
  await form.getByRole("spinbutton", { name: /Seats/ }).fill("40");
  await form.getByLabel(/^Date/).fill("2026-12-24");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(form.getByRole("spinbutton", { name: /Seats/ })).toHaveAttribute("aria-invalid", "true");
  await expect(form).toHaveAttribute("data-state", "pending");

  await form.getByRole("spinbutton", { name: /Seats/ }).fill("4");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(form).toHaveAttribute("data-state", "resolved");
  await expect(chat.conversation).toContainText("Booked 4 seats at Nora on 2026-12-24.");
  await chat.idle();
});

test("a message typed instead of answering the MCP server's question closes the form saying so, and the chat goes on", async ({
  chat,
}) => {
  const form = await chat.request("book a table", "book_table");
  await chat.send("what can you do?");
  await expect(form).toHaveAttribute("data-state", "cancelled");
  await expect(form).toContainText("The person sent a new message instead of answering.");
  await expect(chat.conversation).toContainText("I'm the scripted demo model.");
  await chat.idle();
});
