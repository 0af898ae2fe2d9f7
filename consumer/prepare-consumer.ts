import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readmeSnippets } from "./readme-snippets.js";

/** The repository, and the template of the consumer project. */
export const root = fileURLToPath(new URL("..", import.meta.url));
const template = fileURLToPath(new URL("project", import.meta.url));

/** The packages we ship, in dependency order. */
export const packages = ["protocol", "client", "react", "widgets", "server", "ai-sdk", "mcp"] as const;

/** A prepared consumer: built packages installed from their tarballs, outside the workspace. */
export interface Consumer {
  /** The packed tarballs, by package folder name. */
  tarballs: Record<(typeof packages)[number], string>;
  /** The app written from the READMEs: installed, its server compiled to `dist/`, its UI built to `web/`. */
  app: string;
  /** A project with only `@hitl-kit/react`, `@hitl-kit/widgets` and `@hitl-kit/server` and their required peers. */
  minimal: string;
  /** The compiler of TypeScript 5's last minor, which many apps still build with: `node <it> -p …`. */
  typescript5: string;
}

/** TypeScript 5's last minor: the app's snippets are type-checked with it beside the workspace's 6. */
const TYPESCRIPT_5 = "5.9.3";

/** Runs a command to completion; a failure's message carries what it printed. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      env: { ...cleanEnv(), ...env },
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}${stderr}`);
  }
}

/** The environment without the workspace's npm settings and source condition. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key];
  delete env.NODE_OPTIONS;
  return env;
}

/**
 * The versions this repository is tested with, so the consumer installs what npm ci cached:
 * the root's devDependencies, and the server's (the libraries its README's adapters use).
 */
function pinned(...names: string[]): Record<string, string> {
  const devDependencies = (path: string) =>
    (JSON.parse(readFileSync(join(root, path), "utf8")) as { devDependencies: Record<string, string> }).devDependencies;
  const versions = { ...devDependencies("packages/server/package.json"), ...devDependencies("package.json") };
  return Object.fromEntries(
    names.map((name) => {
      const version = versions[name];
      if (!version) {
        throw new Error(`Neither package.json nor the server's has a devDependency ${name} to pin the consumer to.`);
      }
      return [name, version];
    }),
  );
}

/**
 * Builds the packages (`npm run build`), packs them, and installs the tarballs into two
 * new projects in a temporary folder — no workspace links, no source condition, no tsx —
 * then compiles the app's server and builds its UI. A folder named after the tarballs'
 * hash is reused, so the browser suite and the consumer test share one preparation.
 */
export function prepareConsumer(log: (line: string) => void = () => {}): Consumer {
  log("building the packages (npm run build)");
  run("npm", ["run", "build", "--silent"], root);
  const packs = mkdtempSync(join(tmpdir(), "hitl-kit-packs-"));
  const files = {} as Record<(typeof packages)[number], string>;
  const hash = createHash("sha256");
  for (const name of packages) {
    const output = run("npm", ["pack", "--silent", "--pack-destination", packs], join(root, "packages", name));
    files[name] = output.trim().split("\n").at(-1)!;
    hash.update(readFileSync(join(packs, files[name])));
  }
  for (const file of ["project", "prepare-consumer.ts", "readme-snippets.ts"]) {
    hashTree(hash, join(root, "consumer", file));
  }
  for (const snippet of readmeSnippets(root)) hash.update(snippet.file).update(snippet.code);
  // Native addons are built for one Node ABI: a project installed under another Node is not reused.
  hash.update(process.versions.modules);

  const home = join(tmpdir(), `hitl-kit-consumer-${hash.digest("hex").slice(0, 12)}`);
  const at = (folder: string): Consumer => ({
    tarballs: Object.fromEntries(
      packages.map((name) => [name, join(folder, "packs", files[name])]),
    ) as Consumer["tarballs"],
    app: join(folder, "app"),
    minimal: join(folder, "minimal"),
    typescript5: join(folder, "typescript-5", "node_modules", "typescript", "bin", "tsc"),
  });
  if (existsSync(home)) {
    log(`reusing ${home}`);
    rmSync(packs, { recursive: true, force: true });
    return at(home);
  }
  // Prepared in a folder of its own and renamed when complete, so runs in parallel never
  // see half a project.
  const staging = mkdtempSync(`${home}-staging-`);
  renameSync(packs, join(staging, "packs"));
  const consumer = at(staging);
  const ours = (...names: (typeof packages)[number][]) =>
    Object.fromEntries(names.map((name) => [`@hitl-kit/${name}`, `file:../packs/${files[name]}`]));

  log(`writing the app from the READMEs into ${consumer.app}`);
  cpSync(template, consumer.app, { recursive: true });
  for (const snippet of readmeSnippets(root)) {
    const file = join(consumer.app, snippet.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, snippet.code);
  }
  writeJson(join(consumer.app, "package.json"), {
    name: "hitl-kit-consumer-app",
    private: true,
    type: "module",
    dependencies: {
      ...ours(...packages),
      ...pinned(
        "react",
        "react-dom",
        "zod",
        "@tanstack/react-query",
        "@ai-sdk/anthropic",
        "ai",
        "@ai-sdk/react",
        "@modelcontextprotocol/sdk",
        "express",
        "fastify",
        // docs/deploying.md's servers (postgresStore).
        "pg",
        // The server README's telemetry adapters.
        "@opentelemetry/api",
        "prom-client",
      ),
      "better-sqlite3": betterSqlite3ForThisNode(),
    },
    devDependencies: pinned(
      "typescript",
      "vite",
      "@vitejs/plugin-react",
      "@types/react",
      "@types/react-dom",
      "@types/node",
      "@types/express",
      // The READMEs' tests (Testing sections): run by consumer.test.ts.
      "vitest",
      "happy-dom",
      "@testing-library/react",
      "@testing-library/dom",
    ),
  });
  log("installing the app's dependencies (npm install)");
  const prebuilds = localBetterSqlite3Prebuild(join(staging, "prebuilds"));
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], consumer.app, prebuilds);
  log(
    "compiling the app's server (tsc -p tsconfig.node.json, tsconfig.node-only.json) and building its UI (vite build)",
  );
  run("npx", ["tsc", "-p", "tsconfig.node.json"], consumer.app);
  // A Node project without the DOM library compiles the server and the client's types.
  run("npx", ["tsc", "-p", "tsconfig.node-only.json"], consumer.app);
  run("npx", ["vite", "build", "--outDir", "web", "--logLevel", "warn"], consumer.app);

  log(`installing the minimal project into ${consumer.minimal}`);
  mkdirSync(consumer.minimal, { recursive: true });
  writeJson(join(consumer.minimal, "package.json"), {
    name: "hitl-kit-consumer-minimal",
    private: true,
    type: "module",
    // Without @hitl-kit/ai-sdk, whose required peer `ai` brings the AI SDK's own dependencies.
    dependencies: { ...ours("protocol", "client", "react", "widgets", "server"), ...pinned("react", "react-dom") },
  });
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], consumer.minimal);

  log(`installing TypeScript ${TYPESCRIPT_5} beside them`);
  const typescript5 = join(staging, "typescript-5");
  mkdirSync(typescript5);
  writeJson(join(typescript5, "package.json"), { private: true, dependencies: { typescript: TYPESCRIPT_5 } });
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], typescript5);
  try {
    renameSync(staging, home);
  } catch (error) {
    // Another run finished the same preparation first: use its folder.
    if (!existsSync(home)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  pruneOldConsumers(home);
  return at(home);
}

/** Removes prepared consumers of other builds that nobody has used for a day. */
function pruneOldConsumers(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const entry of readdirSync(tmpdir())) {
    const folder = join(tmpdir(), entry);
    if (!entry.startsWith("hitl-kit-consumer-") || folder === keep) continue;
    if (statSync(folder).mtimeMs < dayAgo) rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The better-sqlite3 this Node needs, as the server README tells users: 12 on Node 20, 13
 * on Node 22 and 24 (the workspace keeps both, 13 as `better-sqlite3-13`).
 */
function betterSqlite3ForThisNode(): string {
  if (Number(process.versions.node.split(".")[0]) < 22) return pinned("better-sqlite3")["better-sqlite3"]!;
  return pinned("better-sqlite3-13")["better-sqlite3-13"]!.replace(/^npm:better-sqlite3@/, "");
}

/**
 * better-sqlite3's install (prebuild-install) looks for its prebuilt binary in the folder
 * `npm_config_better_sqlite3_local_prebuilds` names before it downloads one from GitHub, as a
 * user's install does. This machine reaches only the npm registry, so without a local one
 * every preparation compiled SQLite from source, over a minute of CPU. The workspace's
 * `npm install` compiled it already: when its better-sqlite3 is the version the consumer
 * gets (12 on Node 20; 13 ships prebuilds in its package), this packs that binary as the
 * prebuild of this Node's ABI and answers the environment that points there.
 */
function localBetterSqlite3Prebuild(folder: string): NodeJS.ProcessEnv {
  const workspace = join(root, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")) as { version: string };
  const binary = join(workspace, "build", "Release", "better_sqlite3.node");
  if (version !== betterSqlite3ForThisNode() || !existsSync(binary)) return {};
  mkdirSync(folder, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  run("tar", ["-czf", join(folder, name), "-C", workspace, "build/Release/better_sqlite3.node"], root);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function hashTree(hash: ReturnType<typeof createHash>, path: string): void {
  if (!statSync(path).isDirectory()) {
    hash.update(path).update(readFileSync(path));
    return;
  }
  for (const entry of readdirSync(path).sort()) hashTree(hash, join(path, entry));
}
