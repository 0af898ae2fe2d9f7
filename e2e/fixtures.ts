import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { type DemoServer, startDemoServer } from "./demo-server.js";

const screenshots = fileURLToPath(new URL("./screenshots", import.meta.url));
mkdirSync(screenshots, { recursive: true });

/** The demo as a person uses it: type, send, find a widget, read the conversation. */
export class Chat {
  constructor(readonly page: Page) {}

  async send(text: string): Promise<void> {
    await this.page.getByRole("textbox", { name: "Message" }).fill(text);
    await this.page.getByRole("button", { name: "Send", exact: true }).click();
  }

  /** Sends a message that asks the person something and returns the widget, once it waits for them. */
  async request(text: string, tool: string): Promise<Locator> {
    await this.send(text);
    const widget = this.widget(tool);
    await expect(widget).toHaveAttribute("data-state", "pending");
    return widget;
  }

  /** The newest widget for a tool. */
  widget(tool: string): Locator {
    return this.page.locator(`[data-tool="${tool}"] [data-state]`).first();
  }

  get conversation(): Locator {
    return this.page.getByRole("log", { name: "Conversation" });
  }

  /** The session id the app keeps in the URL hash. */
  sessionId(): string {
    return /session=([^&]+)/.exec(new URL(this.page.url()).hash)?.[1] ?? "";
  }

  /** Waits until the session has no turn running or parked. */
  async idle(): Promise<void> {
    await expect(this.page.getByRole("status").and(this.page.locator(".chat-connection"))).toHaveAttribute(
      "data-status",
      "idle",
    );
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: `${screenshots}/${name}.png` });
  }
}

/** Each test gets its own demo server (fresh data folder, free port) and a chat page on it. */
export const test = base.extend<{ demoEnv: Record<string, string>; demo: DemoServer; chat: Chat }>({
  demoEnv: [{}, { option: true }],
  demo: async ({ demoEnv }, use) => {
    const demo = await startDemoServer(demoEnv);
    await use(demo);
    await demo.stop();
  },
  chat: async ({ page, demo }, use) => {
    await page.goto(demo.url);
    await use(new Chat(page));
  },
});

export { expect };
