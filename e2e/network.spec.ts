import type { SessionSnapshot } from "@hitl-kit/protocol";
import type { Page } from "@playwright/test";
import { startCuttingProxy } from "./cutting-proxy.js";
import { expect, test } from "./fixtures.js";

/** The session as the server has it, asked with the page's identity cookie (the session is the browser's). */
async function serverSnapshot(page: Page, url: string, sessionId: string | undefined): Promise<SessionSnapshot> {
  return (await (await page.request.get(`${url}/api/agent/sessions/${sessionId}`)).json()) as SessionSnapshot;
}

/** The person's messages the server holds for the session. */
async function sentMessages(page: Page, url: string, sessionId: string | undefined) {
  return (await serverSnapshot(page, url, sessionId)).messages.filter((message) => message.role === "user");
}

/** The routes of a session's messages and of its event stream. */
const messagesRoute = /\/api\/agent\/sessions\/[^/]+\/messages$/;
const eventsRoute = /\/api\/agent\/sessions\/[^/]+\/events/;

test("a network drop mid-stream reconnects with no lost or doubled text", async ({ demo, page }) => {
  const proxy = await startCuttingProxy(demo.url);
  try {
    await page.goto(proxy.url);
    const states: string[] = [];
    await page.exposeFunction("recordConnection", (state: string) => states.push(state));
    await expect(page.locator(".chat-connection")).toHaveAttribute("data-state", "open");
    await page.evaluate(() => {
      const badge = document.querySelector(".chat-connection")!;
      const record = (window as unknown as { recordConnection: (s: string) => void }).recordConnection;
      // Every state the badge held, even one replaced before the observer ran.
      new MutationObserver((mutations) => {
        for (const mutation of mutations) record(mutation.oldValue ?? "");
        record(badge.getAttribute("data-state") ?? "");
      }).observe(badge, { attributeFilter: ["data-state"], attributeOldValue: true });
    });

    await page.getByRole("textbox", { name: "Message" }).fill("Make a poster for the spring fair");
    await page.getByRole("button", { name: "Send" }).click();
    const reply = page.getByRole("article", { name: "Assistant" }).first();
    await expect(reply).not.toBeEmpty();
    proxy.cut(); // mid-text: the reply streams a word every 20 ms

    await expect(page.locator('[data-tool="pick_template"] [data-state]').first()).toHaveAttribute(
      "data-state",
      "pending",
    );
    expect(states).toContain("reconnecting");

    const sessionId = /session=([^&]+)/.exec(new URL(page.url()).hash)?.[1];
    const snapshot = await serverSnapshot(page, demo.url, sessionId);
    const expected = snapshot.messages
      .filter((message) => message.role === "assistant")
      .flatMap((message) => message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])));
    const shown = await page.locator('article[data-role="assistant"] .chat-message__text').allInnerTexts();
    expect(shown.map((text) => text.trim())).toEqual(expected.map((text) => text.trim()));
  } finally {
    await proxy.close();
  }
});

test("a message whose reply is lost, and an answer refused by a restarting server, are sent again by the page: one turn, one result, no error", async ({
  chat,
  demo,
  page,
}) => {
  const failed: string[] = [];
  const answered: string[] = [];
  page.on("response", (response) => {
    const command = /\/(messages|responses)$/.exec(new URL(response.url()).pathname)?.[1];
    if (command) answered.push(`${command} ${response.status()}`);
  });
  await page.route(/\/api\/agent\/sessions\/[^/]+\/(messages|responses)$/, async (route) => {
    const command = new URL(route.request().url()).pathname.split("/").at(-1)!;
    if (failed.includes(command)) return route.continue();
    failed.push(command);
    if (command === "responses") {
      // What a server that cannot reach its database answers, having applied nothing.
      return route.fulfill({
        status: 503,
        json: { error: { code: "unavailable", message: "The server cannot reach its session store right now." } },
      });
    }
    await route.fetch(); // the server takes the message…
    await route.abort("connectionreset"); // …and its reply never reaches the page
  });

  await chat.send("refund 1500");
  const approval = chat.widget("refund_charge");
  await expect(approval).toHaveAttribute("data-state", "pending");
  await approval.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(approval).toHaveAttribute("data-state", "resolved");
  await expect(chat.conversation).toContainText("Refunded 1500.00");
  await chat.idle();
  expect(failed).toEqual(["messages", "responses"]);
  // The page stops resending the message once the stream shows its turn; a resend that went
  // out before that is a repeat (200), not a second turn (202) nor `turn_running` (409).
  expect(answered.filter((answer) => answer.startsWith("messages") && answer !== "messages 200")).toEqual([]);
  expect(answered.filter((answer) => answer.startsWith("responses"))).toEqual(["responses 503", "responses 202"]);
  await expect(page.getByRole("alert")).toHaveCount(0);

  const snapshot = await serverSnapshot(page, demo.url, chat.sessionId());
  expect(snapshot.messages.filter((message) => message.role === "user")).toHaveLength(1);
  const calls = snapshot.messages.flatMap((message) => message.parts.filter((part) => part.type === "tool"));
  expect(calls).toEqual([expect.objectContaining({ toolName: "refund_charge", state: "done", outcome: "ok" })]);
});

test("a message the server could not take stays in place, and sent again it shows once and starts one turn", async ({
  chat,
  demo,
  page,
}) => {
  const keys: string[] = [];
  let refuse = true;
  await page.route(messagesRoute, async (route) => {
    keys.push(route.request().headers()["idempotency-key"] ?? "");
    if (!refuse) return route.continue();
    // A server fault is not resent by itself: the message is not sent at once.
    return route.fulfill({ status: 500, json: { error: { code: "internal", message: "Something broke." } } });
  });

  await chat.send("refund 1500");
  const mine = chat.conversation.getByRole("article", { name: "You" });
  await expect(mine).toHaveAttribute("data-state", "failed");
  await expect(mine).toContainText("refund 1500");
  const unsent = chat.conversation.getByRole("alert");
  await expect(unsent).toContainText("Not sent: Something went wrong on the server.");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");

  refuse = false;
  await chat.conversation.getByRole("button", { name: "Send again" }).click();
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  await expect(mine).toHaveCount(1);
  await expect(mine).toHaveAttribute("data-state", "complete");
  await expect(unsent).toHaveCount(0);
  // Sent again under the same key, so had the first reached the server it would be a repeat.
  expect(keys).toHaveLength(2);
  expect(new Set(keys).size).toBe(1);
  expect(await sentMessages(page, demo.url, chat.sessionId())).toHaveLength(1);
});

test("a reload while a message is on its way: one the server took shows once in the history, one it did not comes back not sent", async ({
  chat,
  demo,
  page,
}) => {
  // The server takes the message, but neither its answer nor the event stream reaches the page.
  await expect(page).toHaveURL(/#session=/);
  await page.route(eventsRoute, (route) => route.abort("connectionreset"));
  await page.route(messagesRoute, async (route) => {
    await route.fetch();
    await route.abort("connectionreset");
  });
  await page.reload();
  await chat.send("refund 1500");
  const mine = chat.conversation.getByRole("article", { name: "You" });
  await expect(mine).toContainText("Sending…");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.reload();
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  await expect(mine).toHaveText(["refund 1500"]);
  await expect(mine).toHaveAttribute("data-state", "complete");
  await expect(chat.conversation.getByRole("alert")).toHaveCount(0);

  // Now it never gets there: after the reload it is back, not sent, and sent again it is taken once.
  await page.route(messagesRoute, (route) => route.abort("connectionrefused"));
  await chat.send("refund 300");
  await expect(mine.last()).toContainText("Sending…");
  // Still refused through the reload: a resend of the page being left must not get there first.
  await page.reload();
  const unsent = chat.conversation.getByRole("alert");
  await expect(unsent).toContainText("Not sent: The chat closed before the server confirmed it.");
  await expect(mine.last()).toContainText("refund 300");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await chat.conversation.getByRole("button", { name: "Send again" }).click();
  await expect(unsent).toHaveCount(0);
  await expect(mine).toHaveText(["refund 1500", "refund 300"]);
  await page.reload();
  await expect(mine).toHaveText(["refund 1500", "refund 300"]);
  await expect(unsent).toHaveCount(0);
  expect(await sentMessages(page, demo.url, chat.sessionId())).toHaveLength(2);
});

test("a message taken back after leaving its chat mid-send and coming back is not sent behind the person's back; the draft survives a reload", async ({
  chat,
  demo,
  page,
}) => {
  await expect(page).toHaveURL(/#session=/);
  const left = chat.sessionId();
  await page.route(messagesRoute, (route) => route.abort("connectionrefused"));
  await chat.send("hello");
  const mine = chat.conversation.getByRole("article", { name: "You" });
  await expect(mine).toContainText("Sending…");

  // To another chat and back while the page still resends it: the chat lists it, not sent.
  await page.getByRole("button", { name: "+ New chat" }).click();
  await expect(page).not.toHaveURL(new RegExp(left));
  const back = page.getByRole("navigation", { name: "Chats" }).getByRole("link", { name: /hello/ });
  await expect(back).toContainText("Not sent");
  await back.click();
  const unsent = chat.conversation.getByRole("alert");
  await expect(unsent).toContainText("Not sent: The chat closed before the server confirmed it.");

  // The person takes it back to edit it; the network comes back meanwhile.
  await chat.conversation.getByRole("button", { name: "Edit" }).click();
  const box = page.getByRole("textbox", { name: "Message" });
  await expect(box).toHaveValue("hello");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.waitForTimeout(2_000);
  expect((await serverSnapshot(page, demo.url, left)).messages).toEqual([]);
  await page.reload();
  await expect(box).toHaveValue("hello");
  await expect(unsent).toHaveCount(0);
  await box.fill("hello there");
  await box.press("Enter");
  await expect(mine).toHaveText(["hello there"]);
  await expect(mine).toHaveAttribute("data-state", "complete");
  expect(await sentMessages(page, demo.url, left)).toMatchObject([{ parts: [{ type: "text", text: "hello there" }] }]);
});

test("Stop while the page is still resending a message takes it back at once: nothing runs, and it can be sent again", async ({
  chat,
  demo,
  page,
}) => {
  let down = true;
  let attempts = 0;
  await page.route(messagesRoute, (route) => {
    if (!down) return route.continue();
    attempts += 1;
    return route.abort("connectionrefused");
  });

  await chat.send("refund 1500");
  const mine = chat.conversation.getByRole("article", { name: "You" });
  await expect(mine).toContainText("Sending…");
  await expect(page.locator(".chat-connection")).toHaveText("Live · sending");
  // Being resent.
  await expect.poll(() => attempts).toBeGreaterThan(2);
  const stoppedAt = Date.now();
  await page.getByRole("button", { name: "Stop" }).click();
  const unsent = chat.conversation.getByRole("alert");
  await expect(unsent).toContainText("Not sent: Stopped before it was sent.");
  // At once, not after the resends (about 13 s) ran out.
  expect(Date.now() - stoppedAt).toBeLessThan(3_000);
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible();
  const tried = attempts;
  await page.waitForTimeout(1_500);
  expect(attempts).toBe(tried); // no resend after Stop

  down = false;
  await chat.conversation.getByRole("button", { name: "Send again" }).click();
  await expect(chat.widget("refund_charge")).toHaveAttribute("data-state", "pending");
  await expect(mine).toHaveCount(1);
  expect(await sentMessages(page, demo.url, chat.sessionId())).toHaveLength(1);
});

test("with the event stream down too, Stop shows while a message is resent, and takes it back", async ({
  chat,
  demo,
  page,
}) => {
  const proxy = await startCuttingProxy(demo.url);
  try {
    await page.goto(proxy.url);
    const connection = page.locator(".chat-connection");
    await expect(connection).toHaveAttribute("data-state", "open");
    // The network goes: the open stream is cut, and nothing new gets through.
    const down = /\/api\/agent\/sessions\/[^/]+\/(events|messages)/;
    await page.route(down, (route) => route.abort("connectionrefused"));
    proxy.cut();
    await expect(connection).toHaveAttribute("data-state", "reconnecting");

    await chat.send("refund 1500");
    const stop = page.getByRole("button", { name: "Stop" });
    await expect(stop).toBeVisible();
    await stop.click();
    await expect(chat.conversation.getByRole("alert")).toContainText("Not sent: Stopped before it was sent.");

    await page.unroute(down);
    await expect(connection).toHaveAttribute("data-state", "open");
    await chat.idle();
    const snapshot = await serverSnapshot(page, demo.url, chat.sessionId());
    expect(snapshot.messages).toEqual([]);
  } finally {
    await proxy.close();
  }
});
