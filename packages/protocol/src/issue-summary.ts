import type { ValidationIssue } from "./schema.js";

/**
 * The issues of a refused answer in one line, each at its path (`note: Green needs a note;
 * seats: Too small`), for a message a person reads where a widget shows only the message.
 */
export function issueSummary(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`).join("; ");
}
