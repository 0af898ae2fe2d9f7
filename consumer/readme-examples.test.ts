import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./prepare-consumer.js";
import { readmeSnippets } from "./readme-snippets.js";

describe("the README's quick start", () => {
  const named = readmeSnippets(root).filter((snippet) => snippet.readme === "README.md");

  it.each([
    ["src/tools.ts", "tools.ts"],
    ["src/server.ts", "server.ts"],
    ["src/chat.tsx", "chat.tsx"],
    ["src/main.tsx", "main.tsx"],
    ["vite.config.ts", "vite.config.ts"],
  ])("shows %s exactly as examples/quickstart/%s has it", (file, example) => {
    const snippet = named.find((candidate) => candidate.file === file);
    expect(snippet, `README.md has no block with file=${file}`).toBeDefined();
    expect(snippet?.code).toBe(readFileSync(join(root, "examples/quickstart", example), "utf8"));
  });

  it("names each file once across the READMEs", () => {
    const files = readmeSnippets(root).map((snippet) => snippet.file);
    expect(files.length).toBeGreaterThan(10);
    expect(new Set(files).size).toBe(files.length);
  });
});

describe("the server README's telemetry adapters", () => {
  it.each([
    ["src/open-telemetry.ts", "open-telemetry.ts"],
    ["src/prometheus.ts", "prometheus.ts"],
  ])("shows %s exactly as examples/telemetry/%s, which the server's tests run", (file, example) => {
    const snippet = readmeSnippets(root).find(
      (candidate) => candidate.readme === "packages/server/README.md" && candidate.file === file,
    );
    expect(snippet, `packages/server/README.md has no block with file=${file}`).toBeDefined();
    expect(snippet?.code).toBe(readFileSync(join(root, "examples/telemetry", example), "utf8"));
  });
});
