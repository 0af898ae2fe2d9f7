import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readmeSnippets } from "./readme-snippets.js";

/** The repository, and the template of the consumer project. */
export const root = fileURLToPath(new URL("..", import.meta.url));
const template = fileURLToPath(new URL("project", import.meta.url));

/** The packages we ship, in dependency order. */
export const packages = ["protocol", "client", "react", "widgets", "server"] as const;

/** A prepared consumer: built packages installed from their tarballs, outside the workspace. */
export interface Consumer {
  /** The packed tarballs, by package folder name. */
  tarballs: Record<(typeof packages)[number], string>;
  /** The app written from the READMEs: installed, its server compiled to `dist/`, its UI built to `web/`. */
  app: string;
  /** A project with only `@hitl-kit/react`, `@hitl-kit/widgets` and `@hitl-kit/server` and their required peers. */
  minimal: string;
}

/** Runs a command to completion; a failure's message carries what it printed. */
export function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: cleanEnv() });
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

/** The versions this repository is tested with, so the consumer installs what npm ci cached. */
function pinned(...names: string[]): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  return Object.fromEntries(
    names.map((name) => {
      const version = manifest.devDependencies[name];
      if (!version) throw new Error(`The root package.json has no devDependency ${name} to pin the consumer to.`);
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
  const packs = join(tmpdir(), "hitl-kit-packs");
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(packs, { recursive: true });
  const tarballs = {} as Consumer["tarballs"];
  const hash = createHash("sha256");
  for (const name of packages) {
    const file = run("npm", ["pack", "--silent", "--pack-destination", packs], join(root, "packages", name)).trim();
    tarballs[name] = join(packs, file.split("\n").at(-1)!);
    hash.update(readFileSync(tarballs[name]));
  }
  for (const file of ["project", "prepare-consumer.ts", "readme-snippets.ts"])
    hashTree(hash, join(root, "consumer", file));
  for (const snippet of readmeSnippets(root)) hash.update(snippet.file).update(snippet.code);

  const home = join(tmpdir(), `hitl-kit-consumer-${hash.digest("hex").slice(0, 12)}`);
  const consumer: Consumer = {
    tarballs: {} as Consumer["tarballs"],
    app: join(home, "app"),
    minimal: join(home, "minimal"),
  };
  if (existsSync(join(home, "ready"))) {
    log(`reusing ${home}`);
    for (const name of packages) consumer.tarballs[name] = join(home, "packs", `hitl-kit-${name}-0.1.0.tgz`);
    return consumer;
  }
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, "packs"), { recursive: true });
  for (const name of packages) {
    consumer.tarballs[name] = join(home, "packs", tarballs[name].split("/").at(-1)!);
    cpSync(tarballs[name], consumer.tarballs[name]);
  }
  const ours = (...names: (typeof packages)[number][]) =>
    Object.fromEntries(names.map((name) => [`@hitl-kit/${name}`, `file:${consumer.tarballs[name]}`]));

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
      ...pinned("react", "react-dom", "zod", "better-sqlite3", "@tanstack/react-query", "@ai-sdk/anthropic"),
    },
    devDependencies: pinned(
      "typescript",
      "vite",
      "@vitejs/plugin-react",
      "@types/react",
      "@types/react-dom",
      "@types/node",
    ),
  });
  log("installing the app's dependencies (npm install)");
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], consumer.app);
  log("compiling the app's server (tsc -p tsconfig.node.json) and building its UI (vite build)");
  run("npx", ["tsc", "-p", "tsconfig.node.json"], consumer.app);
  run("npx", ["vite", "build", "--outDir", "web", "--logLevel", "warn"], consumer.app);

  log(`installing the minimal project into ${consumer.minimal}`);
  mkdirSync(consumer.minimal, { recursive: true });
  writeJson(join(consumer.minimal, "package.json"), {
    name: "hitl-kit-consumer-minimal",
    private: true,
    type: "module",
    dependencies: { ...ours(...packages), ...pinned("react", "react-dom") },
  });
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], consumer.minimal);
  writeFileSync(join(home, "ready"), new Date().toISOString());
  return consumer;
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
