import type { AnyToolDefinition, ToolAnswerOf, ToolInputOf } from "./define-tool.js";

/** A set of tools: an object of definitions (as `import * as tools`) or an array. */
export type ToolSet = Readonly<Record<string, AnyToolDefinition>> | readonly AnyToolDefinition[];

/** The union of the tool definitions in a {@link ToolSet}. */
export type ToolUnion<Tools extends ToolSet> = Tools extends readonly (infer T)[] ? T : Tools[keyof Tools];

/** The names of the tools in a {@link ToolSet}. */
export type ToolName<Tools extends ToolSet> = ToolUnion<Tools>["name"];

/**
 * The definition of the tool called `Name`; for tools whose names are not known (the plain
 * `ToolSet` of an untyped registry or client), any of them.
 */
export type ToolNamed<Tools extends ToolSet, Name extends ToolName<Tools>> =
  string extends ToolName<Tools> ? ToolUnion<Tools> : Extract<ToolUnion<Tools>, { name: Name }>;

/** The input type of the tool called `Name`. */
export type ToolInput<Tools extends ToolSet, Name extends ToolName<Tools>> = ToolInputOf<ToolNamed<Tools, Name>>;

/** The answer type of the tool called `Name` (an approval's for a server tool). */
export type ToolAnswer<Tools extends ToolSet, Name extends ToolName<Tools>> = ToolAnswerOf<ToolNamed<Tools, Name>>;

/**
 * Indexes tools by name.
 * @throws when two tools share a name; the message names it
 */
export function indexTools(tools: ToolSet): Map<string, AnyToolDefinition> {
  const byName = new Map<string, AnyToolDefinition>();
  for (const tool of Object.values(tools)) {
    if (byName.has(tool.name)) throw new TypeError(`Two tools are named "${tool.name}"; tool names must be unique.`);
    byName.set(tool.name, tool);
  }
  return byName;
}
