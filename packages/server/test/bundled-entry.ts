import { renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { build } from "esbuild";

const built = new Map<string, Promise<string>>();

/**
 * The file a test's child process runs: `entry` (TypeScript) and the workspace packages'
 * sources it imports, bundled into one ES module beside it (`<name>.test-bundle.mjs`, which
 * git ignores). Plain `node` starts it with a quarter of the CPU that `node --import tsx`
 * spends compiling and resolving the sources one module at a time (0.45 s against 1.7 s for
 * a server), which adds up over the suite's hundred-odd server processes on every Node it
 * runs on. The packages' dependencies stay imports, resolved from the entry's folder as tsx
 * resolves them, and the bundle sits in that folder, so `import.meta.url` names it. Built
 * once per test process.
 */
export function bundledEntry(entry: string): Promise<string> {
  let bundle = built.get(entry);
  if (!bundle) {
    bundle = bundleEntry(entry);
    built.set(entry, bundle);
  }
  return bundle;
}

async function bundleEntry(entry: string): Promise<string> {
  const name = join(dirname(entry), basename(entry).replace(/\.tsx?$/, ""));
  const file = `${name}.test-bundle.mjs`;
  // Written whole under a name of its own (which git ignores too), then renamed: files
  // bundling it at once never run half of one.
  const writing = `${name}.${process.pid}-${Math.random().toString(36).slice(2)}.test-bundle.mjs`;
  await build({
    entryPoints: [entry],
    outfile: writing,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // The workspace packages from their sources, as the tests import them.
    conditions: ["@hitl-kit/source"],
    logLevel: "error",
    plugins: [
      {
        name: "dependencies-stay-imports",
        setup(bundler) {
          bundler.onResolve({ filter: /^[^./]/ }, ({ path }) =>
            path.startsWith("@hitl-kit/") ? undefined : { path, external: true },
          );
        },
      },
    ],
  });
  renameSync(writing, file);
  return file;
}
