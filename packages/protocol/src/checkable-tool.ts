import type { AnyToolDefinition } from "./define-tool.js";
import { findUnsupportedKeyword } from "./json-schema/find-unsupported-keyword.js";
import { isStandardSchema, type JsonSchema, toJsonSchema } from "./schema.js";

/**
 * Refuses a tool whose schemas the browser and the server would check differently. The
 * answer schema is checked as the browser receives it (its JSON Schema, converted from zod
 * or any Standard JSON Schema), and a plain JSON Schema input schema too, since the server
 * checks the model's input with the same validator. Called by `defineTool`,
 * `defineClientTool` and the runtime when it starts.
 * @throws {TypeError} naming the tool, the keyword and where it is, or why the answer
 * schema cannot become JSON Schema
 */
export function assertCheckableTool(tool: AnyToolDefinition): void {
  if (!isStandardSchema(tool.inputSchema)) assertCheckable(tool.inputSchema, `The input schema of ${tool.name}`);
  if (tool.kind !== "client") return;
  let answer: JsonSchema;
  try {
    answer = toJsonSchema(tool.answerSchema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`The answer schema of ${tool.name} cannot be sent to the browser as JSON Schema: ${reason}`);
  }
  assertCheckable(answer, `The answer schema of ${tool.name}`);
}

// zod's JSON Schema output is itself a Standard Schema (it carries a hidden `~standard`),
// so the caller decides what is plain JSON Schema.
function assertCheckable(schema: JsonSchema, what: string): void {
  const unsupported = findUnsupportedKeyword(schema);
  if (!unsupported) return;
  const { keyword, at, reason } = unsupported;
  throw new TypeError(
    `${what} uses "${keyword}" at ${at}, which the browser and the server could not check alike: ${reason}.`,
  );
}
