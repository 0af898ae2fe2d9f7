/**
 * Bundle size of what ships: the packages built, packed and installed into a project
 * outside the workspace (the consumer test's minimal project), bundled as an app would —
 * minified by esbuild, react and react-dom external, everything else bundled, then
 * gzip -9 — beside `useChat` of `@ai-sdk/react`. Exits 1 when a budget is exceeded.
 */
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { prepareConsumer } from "../consumer/prepare-consumer.js";
import { fmt, printTable, type Row, ratio, verdict } from "./table.js";

/**
 * The budget of `@hitl-kit/client` + `@hitl-kit/react` in an app, minified and gzipped: a
 * guard against what should not ship (zod, a second copy of a dependency), not a product
 * target. The README's "Bundle size" says what each raise of it paid for.
 */
export const clientBudgetBytes = 28_700;

const entries = {
  /** What every app ships: the hook, the registry, the request renderer and the fallback form. */
  client: `
    import { createWidgetRegistry, FallbackWidget, ParkedRequests, useAgent } from "@hitl-kit/react";
    import { jsx, jsxs } from "react/jsx-runtime";
    const widgets = createWidgetRegistry();
    export function Chat() {
      const agent = useAgent({ url: "/api/agent" });
      return jsxs("div", { children: [
        agent.messages.map((message) => jsx("p", { children: message.parts.map((part) => part.type === "text" ? part.text : "").join("") }, message.id)),
        jsx(ParkedRequests, { agent, widgets, fallback: FallbackWidget }),
      ] });
    }`,
  /** Every default widget, on top of the client (which stays external here). */
  widgets: `export * from "@hitl-kit/widgets";`,
  useChat: `
    import { useChat } from "@ai-sdk/react";
    import { jsx } from "react/jsx-runtime";
    export function Chat() {
      const chat = useChat();
      return jsx("div", { children: chat.messages.map((message) => jsx("p", { children: message.parts.map((part) => part.type === "text" ? part.text : "").join("") }, message.id)) });
    }`,
};

/** Minified and gzipped bytes of one bundle, and the packages that weigh most in it. */
export interface Size {
  minified: number;
  gzipped: number;
  heaviest: [string, number][];
}

async function bundle(source: string, resolveDir: string, external: string[] = []): Promise<Size> {
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    define: { "process.env.NODE_ENV": '"production"' },
    external: ["react", "react-dom", "react/jsx-runtime", ...external],
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  const byPackage = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const owner = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path;
      byPackage.set(owner, (byPackage.get(owner) ?? 0) + bytesInOutput);
    }
  }
  const heaviest = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, heaviest };
}

async function stylesheet(project: string): Promise<Size> {
  const result = await esbuild.build({
    stdin: { contents: '@import "@hitl-kit/widgets/styles.css";', resolveDir: project, loader: "css" },
    bundle: true,
    minify: true,
    write: false,
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, heaviest: [] };
}

/** Measures the installed packages in `project` (a folder with them in its node_modules). */
export async function measureShipped(project: string) {
  return {
    client: await bundle(entries.client, project),
    widgets: await bundle(entries.widgets, project, ["@hitl-kit/react", "@hitl-kit/client", "@hitl-kit/protocol"]),
    css: await stylesheet(project),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const project = prepareConsumer().minimal;
  const ours = await measureShipped(project);
  const theirs = await bundle(entries.useChat, fileURLToPath(new URL(".", import.meta.url)));
  const kb = (bytes: number) => fmt(bytes / 1000, "KB");
  const row = (name: string, size: Size, anchor?: Size, budget?: number): Row => ({
    case: name,
    ours: `${kb(size.gzipped)} (${kb(size.minified)} min)`,
    anchor: anchor ? `${kb(anchor.gzipped)} (${kb(anchor.minified)} min)` : "—",
    ratio: anchor ? ratio(size.gzipped, anchor.gzipped) : "—",
    target: budget === undefined ? "—" : `≤ ${kb(budget)}`,
    met: verdict(budget === undefined ? undefined : size.gzipped <= budget),
  });
  const weights = (heaviest: [string, number][]) => heaviest.map(([name, bytes]) => `${name} ${kb(bytes)}`).join(", ");
  printTable(
    "Bundle size (what ships: packed tarballs, installed outside the workspace)",
    [
      row("@hitl-kit/client + @hitl-kit/react: gzip -9 (minified)", ours.client, theirs, clientBudgetBytes),
      row("@hitl-kit/widgets, every widget, client external", ours.widgets),
      row("@hitl-kit/widgets/styles.css", ours.css),
    ],
    [
      "ours: useAgent + createWidgetRegistry + ParkedRequests + FallbackWidget; anchor: useChat (its default transport)",
      `heaviest in ours (minified, before gzip): ${weights(ours.client.heaviest)}`,
      `heaviest in useChat's: ${weights(theirs.heaviest)}`,
    ],
  );
  if (ours.client.gzipped > clientBudgetBytes) {
    console.error(
      `Over budget: client + react ship ${ours.client.gzipped} bytes gzipped, budget ${clientBudgetBytes}.`,
    );
    process.exitCode = 1;
  }
}
