import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../src/index.js";

describe("the protocol's version", () => {
  it("is the one the package's description and README name", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      description: string;
    };
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(manifest.description).toContain(`wire protocol v${PROTOCOL_VERSION} `);
    expect(readme).toContain(`## Wire protocol (version ${PROTOCOL_VERSION})`);
  });
});
