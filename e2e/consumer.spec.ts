import { expect, test } from "@playwright/test";
import { type ConsumerApp, startConsumerApp } from "./consumer-app.js";

// The packed packages, installed into a new project and used exactly as the root README's
// quick start writes them (built with Vite, server compiled and run with plain node).
let app: ConsumerApp;
test.beforeAll(async () => {
  app = await startConsumerApp();
});
test.afterAll(() => app.stop());

test("the README's app parks a request, survives a reload, and completes from the widgets", async ({ page }) => {
  const sessionsCreated: string[] = [];
  const streams: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === "POST" && path === "/api/agent/sessions") sessionsCreated.push(path);
    if (path.endsWith("/events")) streams.push(path);
  });
  await page.goto(app.url);
  await page.getByRole("textbox", { name: "Message" }).fill("make me a poster");
  await page.getByRole("button", { name: "Send" }).click();

  // The custom picker registered for pick_template, typed from the tool's definition, in a WidgetFrame.
  const picker = page.getByRole("region", { name: "Choose a template for your poster" });
  await expect(picker).toHaveAttribute("data-state", "pending");
  expect(sessionsCreated).toHaveLength(1);
  expect(streams).toHaveLength(1);
  await picker.getByRole("button", { name: "Calm" }).click();
  await expect(page.getByText("Template: Calm")).toBeVisible();
  await expect(picker).toHaveAttribute("data-state", "resolved");

  // The default ApprovalCard, styled by @hitl-kit/widgets/styles.css.
  const approve = page.getByRole("button", { name: "Approve" });
  await expect(approve).toBeVisible();
  // The button that had focus went with the answer: focus stayed in the widgets, not fallen to the page.
  expect(await page.evaluate(() => document.activeElement?.closest(".hitl-widget") != null)).toBe(true);
  const card = page.locator(".hitl-approval-card");
  await expect(card).toHaveAttribute("data-state", "pending");
  expect(await card.evaluate((element) => getComputedStyle(element).borderTopStyle)).toBe("solid");

  // A reload continues the session from the URL, with its open request.
  expect(page.url()).toMatch(/#session=ses_/);
  await page.reload();
  await expect(page.getByText("Template: Calm")).toBeVisible();
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("Done: the poster uses your template and the charge is refunded.")).toBeVisible();
  await expect(page.locator(".hitl-approval-card")).toHaveAttribute("data-state", "resolved");
  expect(sessionsCreated).toHaveLength(1);
  await page.screenshot({ path: "e2e/screenshots/consumer-app.png" });
});

test("the README's app shows a message the server could not take, keeps it across a reload, and sends it again", async ({
  page,
}) => {
  await page.route(/\/api\/agent\/sessions\/[^/]+\/messages$/, (route) =>
    route.fulfill({ status: 500, json: { error: { code: "internal", message: "Something broke." } } }),
  );
  await page.goto(app.url);
  await page.getByRole("textbox", { name: "Message" }).fill("make me a poster");
  await page.getByRole("button", { name: "Send" }).click();
  const unsent = page.getByRole("alert");
  await expect(unsent).toContainText("Not sent: Something went wrong on the server.");
  await expect(page).toHaveURL(/#session=ses_/);

  await page.reload();
  await expect(page.locator('article[data-state="failed"]')).toContainText("make me a poster");
  // Restored with why it was not sent.
  await expect(unsent).toContainText("Not sent: Something went wrong on the server.");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.getByRole("button", { name: "Send again" }).click();
  await expect(page.getByRole("region", { name: "Choose a template for your poster" })).toBeVisible();
  await expect(unsent).toHaveCount(0);
});

test("an app's own --hitl-* colours on :root win over the widgets' defaults, whatever the order and the theme", async ({
  page,
}) => {
  await page.goto(app.url);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  const accent = () =>
    page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--hitl-accent").trim());
  expect(await accent()).toBe("#4338ca");

  // The app's stylesheet ahead of the widgets' (an app that imports its CSS first).
  await page.evaluate(() => {
    const style = document.createElement("style");
    style.id = "app-theme";
    style.textContent = ":root { --hitl-accent: #123456; }";
    document.head.prepend(style);
  });
  expect(await accent()).toBe("#123456");
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await accent()).toBe("#123456");
  await page.evaluate(() => document.documentElement.setAttribute("data-hitl-theme", "dark"));
  expect(await accent()).toBe("#123456");

  // Without the app's rule, the dark theme's own accent.
  await page.evaluate(() => document.getElementById("app-theme")?.remove());
  expect(await accent()).toBe("#a5b4fc");

  // The scheme darkens the widgets' own controls, never the app's page (its background, its inputs).
  await page.evaluate(() => document.documentElement.removeAttribute("data-hitl-theme"));
  const schemes = () =>
    page.evaluate(() => {
      const widget = document.createElement("div");
      widget.className = "hitl-widget";
      document.body.append(widget);
      const found = [document.documentElement, document.body, widget].map(
        (element) => getComputedStyle(element).colorScheme,
      );
      widget.remove();
      return found;
    });
  expect(await schemes()).toEqual(["normal", "normal", "dark"]);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await schemes()).toEqual(["normal", "normal", "light"]);
});
