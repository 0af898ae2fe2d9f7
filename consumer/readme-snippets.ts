import { readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A TypeScript code block of a README, and where the consumer project puts it. */
export interface Snippet {
  /** The README it comes from, relative to the repository. */
  readme: string;
  /** Its path in the consumer project: from the fence's `file=` (`src/server.ts`), else a generated name in `src/`. */
  file: string;
  code: string;
}

/** The READMEs and guides whose snippets a user copies: the repository's, each package's, and those in docs/. */
export const readmes = [
  "README.md",
  "packages/protocol/README.md",
  "packages/server/README.md",
  "packages/client/README.md",
  "packages/react/README.md",
  "packages/widgets/README.md",
  "packages/ai-sdk/README.md",
  "packages/mcp/README.md",
  "docs/deploying.md",
  "docs/ai-sdk.md",
  "docs/mcp.md",
  "docs/errors.md",
  "docs/security.md",
];

const fence = /^```(tsx?)(?=[ \t\n])([^\n]*)\n([\s\S]*?)^```$/gm;

/**
 * Every `ts` and `tsx` block of the READMEs. A block whose fence names a file
 * (```` ```ts file=src/server.ts ````) is that file of the consumer project — others may
 * import it — and every other block becomes a module of its own. All of them must
 * compile as they are: each imports and defines what it uses. The exception is a block
 * marked ```` ```ts fragment ````: a part of a file, or code the reader has before the
 * change a guide makes (the AI SDK route it replaces), shown for reading, not copying.
 */
export function readmeSnippets(root: string): Snippet[] {
  return readmes.flatMap((readme) => {
    const text = readFileSync(join(root, readme), "utf8");
    const slug =
      relative(".", readme)
        .replace(/\/?README\.md$/, "")
        .replace(/[^a-z0-9]+/gi, "-") || "root";
    return [...text.matchAll(fence)].flatMap(([, lang, info = "", code = ""], index) => {
      if (/\bfragment\b/.test(info)) return [];
      const named = /\bfile=(\S+)/.exec(info)?.[1];
      return [{ readme, file: named ?? `src/readme-${slug}-${index + 1}.${lang}`, code }];
    });
  });
}
