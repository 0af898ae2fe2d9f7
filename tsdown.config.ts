import { defineConfig, type UserConfig } from "tsdown";

/**
 * `npm run build`: the seven packages to `packages/<name>/dist` — ES modules that mirror
 * `src` (so a bundler drops what an app does not import, module by module), `.d.ts` with
 * declaration maps, source maps, and the widgets' CSS as one file. Dependencies and peers
 * stay external.
 */
function library(name: string, entry: string[], options: UserConfig): UserConfig {
  return {
    name: `@hitl-kit/${name}`,
    cwd: `packages/${name}`,
    entry,
    unbundle: true,
    sourcemap: true,
    dts: { sourcemap: true },
    report: false,
    ...options,
  };
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
