import { describe, expect, it } from "vitest";
import { safeCssColor, safeImageUrl } from "../src/index.js";

describe("safeImageUrl", () => {
  it.each([
    "https://cdn.example/poster.png",
    "HTTPS://cdn.example/a.webp",
    "/media/mountains.svg",
    "media/mountains.svg",
    "./templates/bold.svg",
    "/media/a%20b.png?size=2#top",
    "data:image/png;base64,iVBORw0KGgo=",
    "data:image/jpeg;base64,/9j/4AAQ",
    "data:image/gif;base64,R0lGOD",
    "data:image/webp;base64,UklGR",
    "DATA:IMAGE/AVIF;base64,AAAA",
  ])("lets %s through unchanged", (url) => {
    expect(safeImageUrl(url)).toBe(url);
  });

  it.each([
    ["a script URL", "javascript:alert(1)"],
    ["a script URL with a tab inside", "java\tscript:alert(1)"],
    ["a script URL behind a space", " javascript:alert(1)"],
    ["a protocol-relative URL", "//evil.example/x.png"],
    ["a protocol-relative URL with a backslash", "/\\evil.example/x.png"],
    ["a backslashed URL", "\\\\evil.example/x.png"],
    ["a protocol-relative URL split by a newline", "/\n/evil.example/x.png"],
    ["a protocol-relative URL to the checker's own base", "//a.invalid/x.png"],
    ["plain http", "http://evil.example/x.png"],
    ["http on localhost", "http://localhost:8080/admin/reset"],
    ["http on the loopback address", "http://127.0.0.1/x.png"],
    ["an SVG data URL", "data:image/svg+xml,<svg onload='alert(1)'/>"],
    ["an SVG data URL in base64", "data:image/svg+xml;base64,PHN2Zz4="],
    ["an HTML data URL", "data:text/html,<script>alert(1)</script>"],
    ["a data URL that only starts like a picture", "data:image/pngx,AAAA"],
    ["a blob URL", "blob:https://cdn.example/1234"],
    ["a file URL", "file:///etc/passwd"],
    ["an empty string", ""],
    ["a number", 42],
    ["an object", { toString: () => "/media/x.png" }],
  ])("refuses %s", (_case, url) => {
    expect(safeImageUrl(url)).toBeUndefined();
  });
});

describe("safeCssColor", () => {
  it.each([
    "#fff",
    "#ffff",
    "#F43F5E",
    "#f43f5e80",
    "rgb(255, 0, 0)",
    "rgba(255,0,0,0.5)",
    "rgb(100% 0% 0% / 50%)",
    "rgb(255 0 0)",
    "hsl(210 40% 96%)",
    "hsla(210, 40%, 96%, .5)",
    "hsl(0.5turn 40% 50% / 0.2)",
    "rgb(none 0 0)",
    "rebeccapurple",
    "Red",
    "transparent",
  ])("lets %s through", (color) => {
    expect(safeCssColor(color)).toBe(color);
  });

  it("trims the spaces around a colour", () => {
    expect(safeCssColor("  #111827 ")).toBe("#111827");
  });

  it.each([
    ["a url()", "url(https://evil.example/?d=secret)"],
    ["a colour that closes the gradient and adds a url() layer", "red), url(https://evil.example/?d=1"],
    ["two colours in one", "red, blue"],
    ["a declaration break", "red; background-image: url(x)"],
    ["a custom property", "var(--secret)"],
    ["an image-set", "image-set('x.png' 1x)"],
    ["a nested function", "rgb(calc(1 + 1) 0 0)"],
    ["an expression", "expression(alert(1))"],
    ["a hex colour of the wrong length", "#12345"],
    ["a hex colour with a letter past f", "#ggg"],
    ["rgb with too few parts", "rgb(1, 2)"],
    ["rgb with mixed separators", "rgb(1 2, 3)"],
    ["an unknown name", "reddish"],
    ["an escape", "r\\65 d"],
    ["an empty string", ""],
    ["a number", 0xff0000],
    ["a very long string", `#${"f".repeat(100)}`],
  ])("refuses %s", (_case, color) => {
    expect(safeCssColor(color)).toBeUndefined();
  });
});
