import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures.js";

// A phone: 390 × 844 CSS px, touch, the mobile viewport. An on-screen keyboard is acted
// out by shrinking the viewport, as Android's does (the demo's page asks it to resize the
// content: `interactive-widget=resizes-content`).
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

const log = (page: Page) => page.getByRole("log", { name: "Conversation" });

/** How much of the element the person sees, in px of its height: the part inside the conversation's view and the window. */
async function shownPx(page: Page, element: Locator): Promise<number> {
  const view = (await log(page).boundingBox())!;
  const box = (await element.boundingBox())!;
  const windowHeight = page.viewportSize()!.height;
  return Math.min(box.y + box.height, view.y + view.height, windowHeight) - Math.max(box.y, view.y, 0);
}

/** The element is on screen, whole: it fits in the conversation's view and the window. */
async function expectWholeInView(page: Page, element: Locator): Promise<void> {
  const height = (await element.boundingBox())!.height;
  await expect.poll(() => shownPx(page, element)).toBeGreaterThanOrEqual(height - 1);
}

/** A few exchanges, more than a phone's view holds. */
async function chatAWhile(chat: { send(text: string): Promise<void>; idle(): Promise<void> }) {
  for (const text of ["hello", "hello again", "hi", "hey"]) {
    await chat.send(text);
    await chat.idle();
  }
}

/** Sends a message the way the page does (its cookie, its origin) but not from this page: it does not scroll. */
async function sendFromElsewhere(page: Page, url: string, sessionId: string, text: string) {
  const sent = await page.request.post(`${url}/api/agent/sessions/${sessionId}/messages`, {
    data: { text },
    headers: { origin: url },
  });
  expect(sent.status()).toBe(202);
}

test("a request taller than the view shows its question and the field that has focus, not its end", async ({
  chat,
  page,
}) => {
  const form = await chat.request("details", "collect_details");
  await expect(form.getByRole("textbox", { name: /Your name/ })).toBeFocused();
  const formHeight = (await form.boundingBox())!.height;
  expect(formHeight).toBeGreaterThan((await log(page).boundingBox())!.height); // the case this is about
  await expectWholeInView(page, form.getByText("A few details for your booking"));
  await expectWholeInView(page, form.getByRole("textbox", { name: /Your name/ }));
  await chat.screenshot("phone-390-details-parked");
});

const fields = [
  { where: "a short approval's reason", text: "refund 1500", tool: "refund_charge", role: "textbox", name: /Reason/ },
  {
    where: "a field far down a tall form",
    text: "details",
    tool: "collect_details",
    role: "spinbutton",
    name: /Seats/,
  },
] as const;

for (const { where, text, tool, role, name } of fields) {
  test(`the field the person types in (${where}) stays in view when the keyboard shrinks the view`, async ({
    chat,
    page,
  }) => {
    const widget = await chat.request(text, tool);
    const field = widget.getByRole(role, { name });
    await field.tap();
    await expect(field).toBeFocused();
    await expectWholeInView(page, field);
    await page.setViewportSize({ width: 390, height: 480 }); // the keyboard opens
    await expectWholeInView(page, field);
    await page.keyboard.type("12");
    await expect(field).toHaveValue("12");
    await chat.screenshot(`phone-390-keyboard-${tool}`);
  });
}

test("a person reading above is told a request waits, and Jump to latest takes them to its question", async ({
  chat,
  page,
  demo,
}) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await chatAWhile(chat);
  const jump = page.getByRole("button", { name: /^Jump to latest/ });
  await expect(jump).toHaveCount(0);
  await log(page).evaluate((element) => element.scrollTo({ top: 0 }));
  await expect(jump).toHaveAccessibleName("Jump to latest");

  await sendFromElsewhere(page, demo.url, chat.sessionId(), "details");
  await expect(chat.widget("collect_details")).toHaveAttribute("data-state", "pending");
  await expect(jump).toHaveAccessibleName("Jump to latest: a request waits for you");
  expect(await log(page).evaluate((element) => element.scrollTop)).toBe(0); // nothing pulled them down
  await chat.screenshot("phone-390-jump-waiting");

  await jump.focus();
  await page.keyboard.press("Enter");
  await expect(jump).toHaveCount(0);
  const form = chat.widget("collect_details");
  await expect(form).toBeFocused();
  await expectWholeInView(page, form.getByText("A few details for your booking"));
});

test("new messages below are announced by the button, and it goes once the person is back at the end", async ({
  chat,
  page,
  demo,
}) => {
  await chatAWhile(chat);
  await log(page).evaluate((element) => element.scrollTo({ top: 0 }));
  const jump = page.getByRole("button", { name: /^Jump to latest/ });
  await expect(jump).toHaveAccessibleName("Jump to latest");
  await sendFromElsewhere(page, demo.url, chat.sessionId(), "hello once more");
  await expect(log(page).getByRole("article", { name: "You" })).toHaveCount(5);
  await expect(jump).toHaveAccessibleName("Jump to latest: new messages");
  await log(page).evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
  await expect(jump).toHaveCount(0);
});

test.describe("at 320 px (a small phone, or 400% zoom)", () => {
  test.use({ viewport: { width: 320, height: 640 } });

  test("a parked form shows its question first", async ({ chat, page }) => {
    const form = await chat.request("details", "collect_details");
    await expectWholeInView(page, form.getByText("A few details for your booking"));
    await chat.screenshot("phone-320-details-parked");
  });
});
