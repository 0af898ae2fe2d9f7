import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type UserConfig } from "tsdown";

/**
 * `npm run build`: the seven packages to `packages/<name>/dist` — ES modules that mirror
 * `src` (so a bundler drops what an app does not import, module by module), `.d.ts` with
 * declaration maps, source maps, and the widgets' CSS as one file. Dependencies and peers
 * stay external.
 */
function library(name: string, entry: string[], options: UserConfig): UserConfig {
  const cwd = `packages/${name}`;
  const summaries = packageDocumentation(cwd, entry);
  return {
    name: `@hitl-kit/${name}`,
    cwd,
    entry,
    unbundle: true,
    sourcemap: true,
    dts: { sourcemap: true },
    report: false,
    // `undefined` adds nothing to the other files; an empty string would add a blank line.
    outputOptions: { postBanner: (chunk) => summaries.get(chunk.fileName) as string },
    ...options,
  };
}

/**
 * The `@packageDocumentation` comment that opens an entry's source, by the entry's
 * declaration file (`src/react/index.ts` → `react/index.d.ts`). The declaration bundler
 * keeps none of a file's own comments, so without this the built `.d.ts` would lose the
 * package's summary, which editors and API Extractor read there.
 */
function packageDocumentation(cwd: string, entry: string[]): Map<string, string> {
  const summaries = new Map<string, string>();
  for (const file of entry.filter((path) => path.endsWith(".ts"))) {
    const opening = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(cwd, file), "utf8"))?.[0];
    if (opening?.includes("@packageDocumentation")) summaries.set(file.replace(/^src\/(.*)\.ts$/, "$1.d.ts"), opening);
  }
  return summaries;
}

const browser = { platform: "neutral", target: "es2022" } as const;
const node = { platform: "node", target: "node20.19", fixedExtension: false } as const;

export default defineConfig([
  library("protocol", ["src/index.ts", "src/convert.ts", "src/internal.ts"], browser),
  library("client", ["src/index.ts"], browser),
  library("react", ["src/index.ts", "src/query-options.ts"], browser),
  library("widgets", ["src/index.ts", "src/styles.css"], browser),
  library("ai-sdk", ["src/index.ts", "src/react/index.ts"], browser),
  library("server", ["src/index.ts", "src/store/sqlite-store.ts", "src/store/postgres-store.ts"], node),
  library("mcp", ["src/index.ts"], node),
]);
