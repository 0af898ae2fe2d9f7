/**
 * @hitl-kit/mcp: a server tool that calls MCP tools passes their elicitations on to the
 * person (`withElicitations`): each becomes a parked request, and the answer goes back to
 * the MCP server as its `ElicitResult`; `clientPerSession` gives each session its own client.
 * @packageDocumentation
 */

export { type ClientPerSession, type ClientPerSessionOptions, clientPerSession } from "./client-per-session.js";
export {
  type ElicitationParams,
  elicitationQuestion,
  elicitResult,
  type UrlElicitationAnnotation,
  urlElicitationKeyword,
} from "./elicitation-question.js";
export { elicitationCapabilities, withElicitations } from "./with-elicitations.js";
