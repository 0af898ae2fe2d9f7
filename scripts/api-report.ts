import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The API report: for every package, every public entry (`exports` in its package.json) and
 * every name it exports, the declaration as the BUILT `.d.ts` states it (comments removed),
 * written to `packages/<name>/etc/<name>.api.md`. It is checked in, so a change to the public
 * API shows up in review as a diff of that file.
 *
 *     npm run api:report          # build, then rewrite the reports
 *     node --import tsx scripts/api-report.ts --check   # compare, exit 1 on a difference
 *
 * Generated with the TypeScript compiler API from `dist/`, so it reports what ships, not what
 * `src/` happens to say. Types a public declaration uses but no entry exports are listed
 * under "Referenced but not exported", so a forgotten export is visible too.
 */

const root = fileURLToPath(new URL("..", import.meta.url));

/** The packages we ship, as folders of `packages/`. */
export const apiPackages = ["protocol", "client", "react", "widgets", "server", "ai-sdk", "mcp"] as const;

/** One public entry of a package: its subpath and the `.d.ts` the `types` condition names. */
export interface ApiEntry {
  specifier: string;
  declarationFile: string;
}

/** What one entry exports: each name with its declaration text. */
export interface EntryReport {
  specifier: string;
  exports: { name: string; text: string; documented: boolean }[];
}

/** A package's report: its entries, and the names a reviewer should look at. */
export interface PackageReport {
  entries: EntryReport[];
  /** Types a public declaration uses that no entry exports. */
  unexported: string[];
}

/** The public entries of a package, read from its package.json `exports`. */
export function entriesOf(name: string): ApiEntry[] {
  const folder = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | Record<string, string>>;
  };
  const entries: ApiEntry[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    // `./internal` is for hitl-kit's own packages, not covered by semver, and so not reported.
    if (typeof target === "string" || !target.types || subpath.endsWith("/internal")) continue;
    const specifier = subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
    entries.push({ specifier, declarationFile: join(folder, target.types) });
  }
  return entries;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The statement a declaration belongs to (a variable's whole `declare const` line). */
function statementOf(declaration: ts.Declaration): ts.Node {
  if (ts.isVariableDeclaration(declaration)) return declaration.parent.parent;
  return declaration;
}

function declarationText(node: ts.Node): string {
  const text = printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
  // Declarations in the bundle are not `export`ed in place; say `declare` uniformly.
  return text.replace(/^export\s+/, "").replace(/^declare\s+/, "declare ");
}

/** Builds the report of every entry of the given packages from their built declarations. */
export function buildReports(names: readonly string[] = apiPackages): Map<string, PackageReport> {
  const entriesByPackage = new Map(names.map((name) => [name, entriesOf(name)]));
  const files = [...entriesByPackage.values()].flat().map((entry) => entry.declarationFile);
  for (const file of files) {
    if (!existsSync(file)) {
      throw new Error(`${relative(root, file)} is missing: build the packages first (npm run api:report builds them).`);
    }
  }
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, PackageReport>();

  for (const [name, entries] of entriesByPackage) {
    const dist = join(root, "packages", name, "dist");
    const exported = new Set<ts.Symbol>();
    const reports: EntryReport[] = [];
    const publicDeclarations: ts.Node[] = [];
    for (const entry of entries) {
      const source = program.getSourceFile(entry.declarationFile);
      const moduleSymbol = source && checker.getSymbolAtLocation(source);
      if (!moduleSymbol) throw new Error(`${relative(root, entry.declarationFile)} is not a module.`);
      const report: EntryReport = { specifier: entry.specifier, exports: [] };
      for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        exported.add(target);
        const declarations = target.declarations ?? [];
        const documented = declarations.some((declaration) => ts.getJSDocCommentsAndTags(declaration).length > 0);
        const texts = declarations.map((declaration) => {
          const statement = statementOf(declaration);
          publicDeclarations.push(statement);
          return declarationText(statement);
        });
        const local = target.getName();
        const alias = local !== symbol.getName() && local !== "default" ? `// exported as ${symbol.getName()}\n` : "";
        report.exports.push({ name: symbol.getName(), text: alias + texts.join("\n"), documented });
      }
      report.exports.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      reports.push(report);
    }
    // Types a public declaration names that live in this package's dist but no entry exports.
    const unexported = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
        const at = ts.isTypeReferenceNode(node)
          ? node.typeName
          : ts.isTypeQueryNode(node)
            ? node.exprName
            : node.expression;
        let symbol = checker.getSymbolAtLocation(at);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        const declaration = symbol?.declarations?.[0];
        if (
          symbol &&
          declaration &&
          !(symbol.flags & ts.SymbolFlags.TypeParameter) &&
          declaration.getSourceFile().fileName.startsWith(dist) &&
          !exported.has(symbol)
        ) {
          unexported.add(`${symbol.getName()} (${relative(dist, declaration.getSourceFile().fileName)})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    for (const declaration of publicDeclarations) visit(declaration);
    result.set(name, { entries: reports, unexported: [...unexported].sort() });
  }
  return result;
}

/** The report of one package as Markdown. */
export function renderReport(name: string, report: PackageReport): string {
  const lines = [
    `# API report: @hitl-kit/${name}`,
    "",
    "<!-- Generated from the built .d.ts by `npm run api:report`. Do not edit by hand. -->",
    "",
  ];
  for (const entry of report.entries) {
    lines.push(`## ${entry.specifier} (${entry.exports.length} exports)`, "", "```ts");
    for (const item of entry.exports) lines.push(`// ${item.name}`, item.text, "");
    if (lines.at(-1) === "") lines.pop();
    lines.push("```", "");
  }
  lines.push("## Referenced but not exported", "");
  if (report.unexported.length === 0) lines.push("(none)");
  else for (const item of report.unexported) lines.push(`- ${item}`);
  const undocumented = report.entries.flatMap((entry) =>
    entry.exports.filter((item) => !item.documented).map((item) => `${entry.specifier}: ${item.name}`),
  );
  lines.push("", "## Exports without a TSDoc comment", "");
  if (undocumented.length === 0) lines.push("(none)");
  else for (const item of undocumented) lines.push(`- ${item}`);
  lines.push("");
  return lines.join("\n");
}

/** Where a package's report is checked in. */
export function reportPath(name: string): string {
  return join(root, "packages", name, "etc", `${name}.api.md`);
}

function main(argv: string[]): void {
  const check = argv.includes("--check");
  const counts = argv.includes("--counts");
  const reports = buildReports();
  const stale: string[] = [];
  for (const [name, report] of reports) {
    if (counts) {
      for (const entry of report.entries) console.log(`${entry.specifier}\t${entry.exports.length}`);
      continue;
    }
    const text = renderReport(name, report);
    const file = reportPath(name);
    const current = existsSync(file) ? readFileSync(file, "utf8") : undefined;
    if (current === text) continue;
    if (check) stale.push(relative(root, file));
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${relative(root, file)}`);
    }
  }
  if (stale.length > 0) {
    console.error(
      `The public API changed and these API reports are out of date:\n  ${stale.join("\n  ")}\n` +
        "Run `npm run api:report` and commit the reports (review the diff: it is the API change).",
    );
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
