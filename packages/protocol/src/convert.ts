/**
 * @hitl-kit/protocol/convert: tool definitions of other agent frameworks as hitl-kit
 * tools, so an existing tool catalogue can park for a person without being rewritten.
 * @example
 * import { fromVellumTool } from "@hitl-kit/protocol/convert";
 * const readFile = fromVellumTool({ name: "read_file", description: "Read a file.", input_schema, defaultRiskLevel: "low" });
 * @packageDocumentation
 */
export {
  fromReactiveAgentsTool,
  fromVellumTool,
  type ReactiveAgentsToolDefinition,
  type RiskLevel,
  type VellumToolDefinition,
} from "./port-tools.js";
