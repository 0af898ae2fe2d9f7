import { ProtocolError, type ValidationIssue } from "@hitl-kit/protocol";
import type { RequestError } from "./request-state.js";

/** What went wrong with a command: the server's code, message and details, or the client's own. */
export interface CommandError {
  /** The wire error code (`turn_running`, `invalid_answer`, …), `network` when no answer came back, `internal` for anything else thrown. */
  code: string;
  /** A human-readable description of the failure. */
  message: string;
  /** The server's `details` (for `invalid_answer`, the validation issues), when it sent any. */
  details?: unknown;
}

/**
 * How a command ended. Commands never reject: a refusal is here and in the state
 * (`error`, or the request's `error`), so a click handler can ignore the promise.
 */
export type CommandResult =
  | { ok: true; status: number; body: unknown; error?: never }
  | { ok: false; error: CommandError; status?: never; body?: never };

/** The {@link CommandError} of anything a transport threw. */
export function toCommandError(error: unknown): CommandError {
  if (error instanceof ProtocolError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}

/** A refused answer as a request shows it: a 422's details become its `issues`. */
export function toRequestError(error: CommandError): RequestError {
  const issues = error.code === "invalid_answer" && isIssueList(error.details) ? error.details : undefined;
  return { code: error.code, message: error.message, ...(issues ? { issues } : {}) };
}

function isIssueList(details: unknown): details is ValidationIssue[] {
  return (
    Array.isArray(details) && details.every((issue) => typeof issue?.message === "string" && Array.isArray(issue?.path))
  );
}
