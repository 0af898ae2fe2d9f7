/**
 * Bundle size: what a browser app ships for hitl-kit's `useAgent` + widget registry +
 * `ParkedRequests` + the fallback form, beside `useChat` of `@ai-sdk/react`. Minified by
 * esbuild, react and react-dom external, everything else bundled, then gzip -9.
 */
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { fmt, printTable, type Row, ratio, verdict } from "./table.js";

const consumers = {
  ours: `
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
  useChat: `
    import { useChat } from "@ai-sdk/react";
    import { jsx } from "react/jsx-runtime";
    export function Chat() {
      const chat = useChat();
      return jsx("div", { children: chat.messages.map((message) => jsx("p", { children: message.parts.map((part) => part.type === "text" ? part.text : "").join("") }, message.id)) });
    }`,
};

/** Minified and gzipped sizes of one consumer, and the packages that weigh most in it. */
async function measure(source: string) {
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: import.meta.dirname, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    conditions: ["@hitl-kit/source"],
    define: { "process.env.NODE_ENV": '"production"' },
    external: ["react", "react-dom", "react/jsx-runtime"],
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  const byPackage = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      // Our own packages are named with their scope, so `@hitl-kit/react` never reads as react itself.
      const ours = /packages\/([^/]+)/.exec(path)?.[1];
      const owner =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? (ours === undefined ? path : `@hitl-kit/${ours}`);
      byPackage.set(owner, (byPackage.get(owner) ?? 0) + bytesInOutput);
    }
  }
  const heaviest = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, heaviest };
}

const [ours, theirs] = [await measure(consumers.ours), await measure(consumers.useChat)];
const kb = (bytes: number) => bytes / 1000;
const rows: Row[] = [
  {
    case: "minified",
    ours: fmt(kb(ours.minified), "KB"),
    anchor: fmt(kb(theirs.minified), "KB"),
    ratio: ratio(ours.minified, theirs.minified),
    target: "—",
    met: "—",
  },
  {
    case: "minified + gzip -9",
    ours: fmt(kb(ours.gzipped), "KB"),
    anchor: fmt(kb(theirs.gzipped), "KB"),
    ratio: ratio(ours.gzipped, theirs.gzipped),
    target: "≤ 20 KB",
    met: verdict(ours.gzipped <= 20_000),
  },
];
const weights = (heaviest: [string, number][]) =>
  heaviest.map(([name, bytes]) => `${name} ${fmt(kb(bytes), "KB")}`).join(", ");
printTable("Bundle size", rows, [
  "ours: useAgent + createWidgetRegistry + ParkedRequests + FallbackWidget; anchor: useChat (its default transport)",
  `heaviest in ours (minified, before gzip): ${weights(ours.heaviest)}`,
  `heaviest in useChat's: ${weights(theirs.heaviest)}`,
]);
