import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from "@microsoft/api-extractor";
import ts from "typescript";

/**
 * The API reports: for every public entry of every package (the `exports` of its
 * package.json, `./internal` aside), API Extractor's report of what the BUILT `.d.ts`
 * declares, checked in as `packages/<name>/etc/<name>[-<subpath>].api.md`. A change to the
 * public API shows up in review as a diff of those files.
 *
 *     npm run api:report     # build the packages, then rewrite the reports
 *     npm run api:check      # compare with the built packages; exit 1 naming the stale reports
 *     node --import tsx scripts/api-report.ts --counts   # exports per entry
 *
 * A type a public declaration uses but no entry exports is marked in the report
 * (`ae-forgotten-export`), and so is every member without a TSDoc comment (`(undocumented)`).
 */

const root = fileURLToPath(new URL("..", import.meta.url));

/** The packages we ship, as folders of `packages/`. */
export const apiPackages = ["protocol", "client", "react", "widgets", "server", "ai-sdk", "mcp"] as const;

/** One public entry of a package: its specifier, its built `.d.ts`, and its report's name. */
export interface ApiEntry {
  packageName: (typeof apiPackages)[number];
  specifier: string;
  declarationFile: string;
  /** The report's file name without `.api.md`: the package folder, then the subpath with `-`. */
  reportName: string;
}

/** The public entries of a package, read from its package.json `exports`. */
export function entriesOf(packageName: (typeof apiPackages)[number]): ApiEntry[] {
  const folder = join(root, "packages", packageName);
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | Record<string, string>>;
  };
  const entries: ApiEntry[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    // `./internal` is for hitl-kit's own packages, not covered by semver, and so not reported.
    if (typeof target === "string" || !target.types || subpath.endsWith("/internal")) continue;
    const rest = subpath === "." ? "" : subpath.slice(2).replaceAll("/", "-");
    entries.push({
      packageName,
      specifier: subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}`,
      declarationFile: join(folder, target.types),
      reportName: rest ? `${packageName}-${rest}` : packageName,
    });
  }
  return entries;
}

/** Every public entry of every shipped package. */
export function allEntries(): ApiEntry[] {
  return apiPackages.flatMap(entriesOf);
}

/** Where an entry's report is checked in. */
export function reportPath(entry: ApiEntry): string {
  return join(root, "packages", entry.packageName, "etc", `${entry.reportName}.api.md`);
}

function configFor(entry: ApiEntry, scratch: string): IConfigFile {
  const quiet = { logLevel: ExtractorLogLevel.None, addToApiReportFile: false };
  const inReport = { logLevel: ExtractorLogLevel.None, addToApiReportFile: true };
  return {
    projectFolder: join(root, "packages", entry.packageName),
    mainEntryPointFilePath: entry.declarationFile,
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          module: "esnext",
          moduleResolution: "bundler",
          target: "es2022",
          lib: ["es2023", "dom", "dom.iterable"],
          jsx: "react-jsx",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
        },
        files: [entry.declarationFile],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.reportName,
      reportFolder: join(root, "packages", entry.packageName, "etc"),
      reportTempFolder: scratch,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: "lf",
    messages: {
      // What a reviewer should see is written into the report; nothing else is printed.
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: inReport,
        // We mark stability by entry (`/internal`), not with release tags.
        "ae-missing-release-tag": quiet,
      },
      // TSDoc's strict syntax (escaped braces and the like) is not how our comments are written.
      tsdocMessageReporting: { default: quiet },
    },
  };
}

/**
 * Runs API Extractor on every public entry. With `update`, rewrites the reports; without,
 * leaves them and returns the ones that differ from what the built `.d.ts` declare.
 */
export function runApiExtractor(update: boolean, log: (line: string) => void = () => {}): string[] {
  const scratch = join(tmpdir(), `hitl-kit-api-report-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  const stale: string[] = [];
  try {
    for (const entry of allEntries()) {
      if (update) mkdirSync(dirname(reportPath(entry)), { recursive: true });
      else if (!existsSync(reportPath(entry))) {
        stale.push(relative(root, reportPath(entry)));
        continue;
      }
      const config = ExtractorConfig.prepare({
        configObject: configFor(entry, scratch),
        configObjectFullPath: undefined,
        packageJsonFullPath: join(root, "packages", entry.packageName, "package.json"),
      });
      const problems: string[] = [];
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback: (message) => {
          message.handled = true;
          if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
            // API Extractor's own notes (a report created or changed) are what we act on below.
            if (!message.messageId.startsWith("console-")) problems.push(message.formatMessageWithLocation(root));
          }
        },
      });
      if (problems.length > 0) {
        throw new Error(`API Extractor on ${entry.specifier}:\n  ${problems.join("\n  ")}`);
      }
      if (result.apiReportChanged) {
        stale.push(relative(root, reportPath(entry)));
        log(`${update ? "wrote" : "stale"} ${relative(root, reportPath(entry))}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return stale;
}

/** The number of names each public entry exports, from the built `.d.ts`. */
export function exportCounts(): { specifier: string; count: number }[] {
  const entries = allEntries();
  const program = ts.createProgram(
    entries.map((entry) => entry.declarationFile),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const source = program.getSourceFile(entry.declarationFile);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${relative(root, entry.declarationFile)} is missing: run npm run build first.`);
    return { specifier: entry.specifier, count: checker.getExportsOfModule(module).length };
  });
}

function main(argv: string[]): void {
  if (argv.includes("--counts")) {
    for (const { specifier, count } of exportCounts()) console.log(`${specifier}\t${count}`);
    return;
  }
  const check = argv.includes("--check");
  const stale = runApiExtractor(!check, console.log);
  if (check && stale.length > 0) {
    console.error(
      `The public API changed and these API reports are out of date:\n  ${stale.join("\n  ")}\n` +
        "Run `npm run api:report` and commit the reports (review their diff: it is the API change).",
    );
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
