import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { serveFolder } from "./static-server.js";

/**
 * The widgets on a phone (320 px, touch), in the built Storybook: every control a finger
 * aims at is at least 44 px tall (WCAG 2.5.5), and nothing is wider than the screen.
 */
const built = fileURLToPath(new URL("../storybook/storybook-static", import.meta.url));
const stories = [
  "widgets-approvalcard--pending",
  "widgets-choicepicker--pending",
  "widgets-multichoicepicker--pending",
  "widgets-freeformanswer--pending",
  "widgets-formwidget--pending",
  "widgets-mediapicker--pending",
  "widgets-templatepicker--pending",
  "forms-fallbackwidget--pending",
];

let site: Awaited<ReturnType<typeof serveFolder>>;
test.beforeAll(async () => {
  site = await serveFolder(built);
});
test.afterAll(() => site.close());

test.use({ viewport: { width: 320, height: 844 }, isMobile: true, hasTouch: true });

for (const id of stories) {
  test(`${id}: touch targets of 44 px, no overflow at 320 px`, async ({ page }) => {
    await page.goto(`${site.url}/iframe.html?id=${id}&viewMode=story`);
    const widget = page.locator("[data-hitl-widget]").first();
    await expect(widget).toBeVisible();
    expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
    const heights = await widget.evaluate((root) =>
      [
        ...root.querySelectorAll(
          ".hitl-button, .hitl-input, .hitl-select, .hitl-check, .hitl-options--list > .hitl-option",
        ),
      ].map((el) => [el.className, Math.round(el.getBoundingClientRect().height)] as const),
    );
    expect(heights.length).toBeGreaterThan(0);
    for (const [name, height] of heights) expect(height, name).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
  });
}
