import { type InputResponse, validateJsonSchema } from "@hitl-kit/protocol";
import { issueSummary } from "@hitl-kit/protocol/internal";
import type { RequestError, RequestState, SentAnswer } from "./request-state.js";

/**
 * Why an answer does not fit the answer schema of the request it answers (code
 * `invalid_answer`, with each issue), checked before anything is sent; `undefined` when it
 * fits, when it declines or cancels, or when the request is not known (the server checks it).
 */
export function checkAnswer(tracked: RequestState | undefined, response: InputResponse): RequestError | undefined {
  if (response.action !== "accept" || !tracked) return undefined;
  const { request } = tracked;
  const value = request.kind === "approval" ? (response.value ?? {}) : response.value;
  const checked =
    value === undefined
      ? { ok: false as const, issues: [{ path: [], message: "Required" }] }
      : validateJsonSchema(request.answerSchema, value);
  if (checked.ok) return undefined;
  return {
    code: "invalid_answer",
    message: `The answer does not fit the answer schema of ${request.toolName} (${issueSummary(checked.issues)}).`,
    issues: checked.issues,
  };
}

/** What a request shows as sent while it is `submitting`: the response, without its request id. */
export function sentAnswer({ action, value, reason }: InputResponse): SentAnswer {
  if (action === "accept") return { action, value };
  if (action === "decline") return reason === undefined ? { action } : { action, reason };
  return { action };
}
