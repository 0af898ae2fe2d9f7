import { always, never, once } from "./approval.js";
import { defineTool, type ServerToolDefinition } from "./define-tool.js";
import type { JsonSchema } from "./schema.js";

/** A risk level as tool ecosystems grade them. */
export type RiskLevel = "low" | "medium" | "high";

const policyForRisk = { low: never, medium: once, high: always } as const;

/** A tool as the Vellum plugin API declares it. */
export interface VellumToolDefinition {
  /** The name the model calls it by. */
  name: string;
  /** What the model is told the tool does. */
  description: string;
  /** JSON Schema of the input. */
  input_schema: JsonSchema;
  /** Sets the approval policy: low → `never()`, medium → `once()`, high → `always()`. */
  defaultRiskLevel: RiskLevel;
}

/**
 * Converts a Vellum plugin tool: `defaultRiskLevel` low → `never()`, medium → `once()`,
 * high → `always()`. Attach its executor with `implement` on the server.
 * @example
 * import { fromVellumTool } from "@hitl-kit/protocol/convert";
 * const readFile = fromVellumTool({ name: "read_file", description: "Read a file.", input_schema, defaultRiskLevel: "low" });
 */
export function fromVellumTool(tool: VellumToolDefinition): ServerToolDefinition<string, JsonSchema> {
  const policy = policyForRisk[tool.defaultRiskLevel];
  if (!policy) throw new TypeError(`Tool "${tool.name}": unknown defaultRiskLevel "${tool.defaultRiskLevel}".`);
  return defineTool({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
    approval: policy(),
  });
}

/** A tool as reactive-agents declares it. */
export interface ReactiveAgentsToolDefinition {
  /** The name the model calls it by. */
  name: string;
  /** What the model is told the tool does. */
  description: string;
  /** JSON Schema of the input. */
  parameters: JsonSchema;
  /** When set, decides alone: true → `always()`, false → `never()`. */
  requiresApproval?: boolean;
  /** Used when `requiresApproval` is not set: as Vellum's levels, with critical → `always()`; absent → `never()`. */
  riskLevel?: RiskLevel | "critical";
}

/**
 * Converts a reactive-agents tool: `requiresApproval` decides when it is set (true →
 * `always()`, false → `never()`); otherwise `riskLevel` does, as for Vellum, with
 * critical → `always()`. Neither set → `never()`.
 */
export function fromReactiveAgentsTool(tool: ReactiveAgentsToolDefinition): ServerToolDefinition<string, JsonSchema> {
  const risk = tool.riskLevel === "critical" ? "high" : tool.riskLevel;
  const approval =
    tool.requiresApproval === undefined ? policyForRisk[risk ?? "low"]() : tool.requiresApproval ? always() : never();
  return defineTool({ name: tool.name, description: tool.description, inputSchema: tool.parameters, approval });
}
