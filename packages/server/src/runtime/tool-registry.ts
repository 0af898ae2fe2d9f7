import type { AnyToolDefinition } from "@hitl-kit/protocol";
import { assertCheckableTool, indexTools } from "@hitl-kit/protocol/internal";
import type { ImplementedTool } from "./implement.js";
import { assertTimeout } from "./tool-timeout.js";

/** What the runtime is given as tools: bare definitions (client tools) or implemented ones. */
export type RuntimeTool = AnyToolDefinition | ImplementedTool;

/** A tool ready to run: its definition and, where it has them, its executor or resolver. */
export type RegisteredTool = ImplementedTool;

/**
 * Checks and indexes the runtime's tools.
 * @throws naming the tool: two tools with one name, a server tool with no executor, a
 * client tool with an executor, a tool with both an executor and a resolver, or a schema
 * the browser and the server could not check alike (see `assertCheckableTool`)
 */
export function registerTools(tools: readonly RuntimeTool[]): Map<string, RegisteredTool> {
  const registered = tools.map((tool): RegisteredTool => ("definition" in tool ? tool : { definition: tool }));
  indexTools(registered.map((tool) => tool.definition));
  const byName = new Map<string, RegisteredTool>();
  for (const tool of registered) {
    const { name, kind } = tool.definition;
    assertCheckableTool(tool.definition);
    assertTimeout(tool.timeoutMs, `The timeoutMs of tool "${name}"`);
    if (tool.execute && tool.resolve) {
      throw new TypeError(
        `Tool "${name}" has both an executor and client resolution; a call must have exactly one result, so give it one or the other.`,
      );
    }
    if (kind === "client" && tool.execute) {
      throw new TypeError(
        `Tool "${name}" is a client tool and cannot have an executor: the person's answer is its result. Use implement(${name}, { resolve }) to post-process the answer.`,
      );
    }
    if (kind === "server" && !tool.execute) {
      throw new TypeError(`Tool "${name}" is a server tool with no executor: pass implement(tool, execute).`);
    }
    byName.set(name, tool);
  }
  return byName;
}
