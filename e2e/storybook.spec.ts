import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, type Page, test } from "@playwright/test";
import { serveFolder } from "./static-server.js";

const built = fileURLToPath(new URL("../storybook/storybook-static", import.meta.url));
const index = JSON.parse(readFileSync(`${built}/index.json`, "utf8")) as {
  entries: Record<string, { id: string; type: string; title: string }>;
};
const stories = Object.values(index.entries).filter((entry) => entry.type === "story");

let site: Awaited<ReturnType<typeof serveFolder>>;
test.beforeAll(async () => {
  site = await serveFolder(built);
});
test.afterAll(() => site.close());

test("the built Storybook lists every widget", async ({ page }) => {
  expect(stories.length).toBeGreaterThan(40);
  await page.goto(`${site.url}/`);
  await expect(page.getByRole("button", { name: /ApprovalCard/i }).first()).toBeVisible();
});

/** How a story shown in the open preview ended: `rendered`, or the preview's event saying why not. */
function show(page: Page, storyId: string): Promise<string> {
  return page.evaluate(
    (id) =>
      new Promise<string>((resolve) => {
        const channel = (window as unknown as { __STORYBOOK_ADDONS_CHANNEL__: Channel }).__STORYBOOK_ADDONS_CHANNEL__;
        const endings = [
          "storyRendered",
          "storyErrored",
          "storyThrewException",
          "playFunctionThrewException",
          "storyMissing",
        ];
        const end = (outcome: string) => {
          for (const [name, listener] of listeners) channel.off(name, listener);
          clearTimeout(timer);
          resolve(outcome);
        };
        const listeners = endings.map(
          (name) =>
            [
              name,
              (detail: unknown) => end(name === "storyRendered" ? "rendered" : `${name}: ${JSON.stringify(detail)}`),
            ] as const,
        );
        const timer = setTimeout(() => end("no ending within 30 s"), 30_000);
        for (const [name, listener] of listeners) channel.on(name, listener);
        channel.emit("setCurrentStory", { storyId: id, viewMode: "story" });
      }),
    storyId,
  );
}
interface Channel {
  on(name: string, listener: (detail: unknown) => void): void;
  off(name: string, listener: (detail: unknown) => void): void;
  emit(name: string, detail: unknown): void;
}

// Axe checks of every story run in `npm test` (the storybook Vitest project, in development
// mode); here the static build itself is proved. The preview is loaded once, and every story is
// shown in it as Storybook's sidebar does: it renders, and its play function passes, without a
// page error. (Loading the preview anew for each story took four times as long.) Two parts, so
// the browser suite's workers share them.
const parts = 2;
for (let part = 0; part < parts; part++) {
  const share = stories.filter((_, index) => index % parts === part);
  test(`every story of the built Storybook renders and plays without errors (${part + 1} of ${parts})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // Opened on the last story, so every story of the part, the last one too, is shown by a switch.
    const last = share.at(-1)?.id;
    await page.goto(`${site.url}/iframe.html?id=${last}&viewMode=story`);
    await expect(page.locator("#storybook-root > *").first()).toBeVisible();
    // The preview reloads itself when a story is left while its play function runs: wait for it.
    await page.waitForFunction(() => {
      const preview = (window as unknown as { __STORYBOOK_PREVIEW__?: { currentRender?: { phase?: string } } })
        .__STORYBOOK_PREVIEW__;
      return ["completed", "finished", "errored", "aborted"].includes(preview?.currentRender?.phase ?? "");
    });
    for (const story of share) {
      expect.soft(await show(page, story.id), story.id).toBe("rendered");
    }
    expect(errors).toEqual([]);
  });
}
