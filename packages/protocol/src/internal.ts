/**
 * @hitl-kit/protocol/internal: what hitl-kit's own packages share and apps should not
 * use — the server's command-body parsing, tool checks and approval evaluation, the SSE
 * keep-alive comment, JSON equality, the one-line summary of an answer's issues.
 *
 * NOT COVERED BY SEMVER. This entry may change in any release; it is left out of the API
 * report and the API reference. The hitl-kit packages version together (changesets
 * `fixed`) and depend on each other's exact versions, so the importers always get the
 * matching build.
 * @internal
 * @packageDocumentation
 */
export { requiresApproval, toApprovalPolicy } from "./approval.js";
export { assertCheckableTool } from "./checkable-tool.js";
export { type CommandBodies, parseCommandBody } from "./decode-command.js";
export { canPark, promptFor } from "./define-tool.js";
export { issueSummary } from "./issue-summary.js";
export { jsonEqual } from "./json-equal.js";
export { findUnsupportedKeyword, type UnsupportedKeyword } from "./json-schema/find-unsupported-keyword.js";
export { isStandardSchema } from "./schema.js";
export { encodeComment } from "./sse.js";
export { indexTools } from "./tool-map.js";
