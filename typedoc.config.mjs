// @ts-check
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * `npm run docs:api`: the API reference of every public entry, built with TypeDoc from the
 * TSDoc comments in src/ into docs/api-reference/ (git-ignored). The entries are read from
 * each package's `exports` (the `@hitl-kit/source` targets), so a new subpath is documented
 * without editing this file; `./internal` is not covered by semver and is left out, as
 * are `@internal` declarations. A broken `{@link}` fails the build.
 */
const packages = ["protocol", "client", "react", "widgets", "server", "ai-sdk", "mcp"];

const entryPoints = packages.flatMap((name) => {
  const manifest = JSON.parse(readFileSync(join("packages", name, "package.json"), "utf8"));
  return Object.entries(manifest.exports)
    .filter(([subpath, target]) => typeof target === "object" && target.types && !subpath.endsWith("/internal"))
    .map(([, target]) => join("packages", name, target["@hitl-kit/source"]));
});

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "hitl-kit API reference",
  entryPoints,
  entryPointStrategy: "resolve",
  tsconfig: "tsconfig.json",
  out: "docs/api-reference",
  readme: "none",
  plugin: ["./scripts/typedoc-package-names.mjs"],
  excludeInternal: true,
  excludePrivate: true,
  excludeExternals: true,
  sort: ["kind", "alphabetical"],
  disableSources: true,
  treatWarningsAsErrors: true,
};
