import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
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

// Axe checks of every story run in `npm test` (the storybook Vitest project); here the
// static build itself is proved: every story loads and renders without a page error. The
// stories are split into a few tests so the browser suite's workers share them.
const parts = 4;
for (let part = 0; part < parts; part++) {
  const share = stories.filter((_, index) => index % parts === part);
  test(`every story of the built Storybook renders without errors (${part + 1} of ${parts})`, async ({ page }) => {
    test.setTimeout(120_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    for (const story of share) {
      await page.goto(`${site.url}/iframe.html?id=${story.id}&viewMode=story`);
      await expect(page.locator("#storybook-root > *").first(), story.id).toBeVisible();
    }
    expect(errors).toEqual([]);
  });
}
