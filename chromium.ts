/**
 * Debian's Chromium and the flags that work in containers, for every browser test
 * (Vitest's Storybook project and Playwright). Nothing downloads a browser of its own.
 */
export const chromium = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
};
