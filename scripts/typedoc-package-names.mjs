// @ts-check
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Converter } from "typedoc";

/**
 * A TypeDoc plugin for `npm run docs:api`: names each module of the reference after the
 * import specifier people write (`@hitl-kit/server/sqlite`) instead of its source path
 * (`server/src/store/sqlite-store`), from the `@hitl-kit/source` targets in each package's
 * `exports`.
 * @param {import("typedoc").Application} app
 */
export function load(app) {
  const root = process.cwd();
  /** @type {Map<string, string>} source file (relative to the repository) → specifier */
  const specifiers = new Map();
  for (const name of ["protocol", "client", "react", "widgets", "server", "ai-sdk", "mcp"]) {
    const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target !== "object" || !target["@hitl-kit/source"]) continue;
      const file = join("packages", name, target["@hitl-kit/source"]);
      specifiers.set(file, subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}`);
    }
  }
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) {
      const base = join("packages", module.name);
      const file = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((path) => existsSync(join(root, path)));
      const specifier = file && specifiers.get(file);
      if (!specifier) throw new Error(`docs:api: no package.json export names the entry ${module.name}`);
      module.name = specifier;
    }
  });
}
