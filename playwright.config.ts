import { defineConfig } from "@playwright/test";
import { chromium } from "./chromium.js";

/**
 * Browser tests in Debian's Chromium (never a downloaded browser). Each test starts its
 * own demo server on a free loopback port with a fresh data folder (see e2e/fixtures.ts),
 * so tests do not share state; the global setup builds the demo and Storybook once.
 */
export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  use: {
    viewport: { width: 1280, height: 820 },
    launchOptions: chromium,
    screenshot: "only-on-failure",
  },
});
