type Part = {
  text?: unknown;
  thought?: unknown;
  thoughtSignature?: unknown;
  functionCall?: { id?: unknown; name?: unknown; args?: unknown };
  functionResponse?: { id?: unknown; name?: unknown; response?: unknown };
};
type Content = { role?: unknown; parts?: unknown };

/** The value Google documents for replaying a function call whose signature was lost. */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

/** What the validator knows of the conversation beyond the body. */
export type GoogleValidation = {
  /** Gemini 3 refuses a function call of the current turn sent back without its thought signature. */
  requireSignatures: boolean;
  /** The signatures this API issued; any other (bar the skip value) is refused as corrupted. */
  issued: ReadonlySet<string>;
};

/**
 * Checks a Gemini `generateContent` / `streamGenerateContent` body the way the API does before
 * it answers, and returns the message of its 400 (`INVALID_ARGUMENT`), or null.
 *
 * It covers: contents present; roles `user`/`model`; non-empty parts; strict alternation of
 * user and model turns; a function call turn only right after a user or function-response
 * turn; the turn after a function call turn answering it with as many functionResponse parts
 * as it has functionCall parts; a function response turn only right after a function call
 * turn; and, for Gemini 3, the first functionCall part of each model turn of the current turn
 * (after the last user turn with text) carrying a thought signature this API issued.
 */
export function validateGoogleContents(body: unknown, { requireSignatures, issued }: GoogleValidation): string | null {
  const request = body as { contents?: unknown };
  if (!Array.isArray(request.contents) || request.contents.length === 0) {
    return "* GenerateContentRequest.contents: contents is not specified\n";
  }
  const contents = request.contents as Content[];
  for (const [i, content] of contents.entries()) {
    if (content.role !== "user" && content.role !== "model") return "Please use a valid role: user, model.";
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    }
    if (i > 0 && contents[i - 1]?.role === content.role) {
      return "Please ensure that multiturn requests alternate between user and model.";
    }
  }
  for (const [i, content] of contents.entries()) {
    const calls = partsOf(content).filter((part) => part.functionCall);
    const responses = partsOf(content).filter((part) => part.functionResponse);
    if (calls.length > 0 && i > 0 && contents[i - 1]?.role !== "user") {
      return "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
    }
    if (responses.length > 0) {
      const previousCalls = partsOf(contents[i - 1]).filter((part) => part.functionCall);
      if (previousCalls.length === 0) {
        return "Please ensure that function response turn comes immediately after a function call turn.";
      }
    }
    if (calls.length > 0 && i + 1 < contents.length) {
      const answers = partsOf(contents[i + 1]).filter((part) => part.functionResponse);
      if (answers.length !== calls.length) {
        return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
      }
    }
  }
  for (const content of contents) {
    for (const part of partsOf(content)) {
      const signature = part.thoughtSignature;
      if (signature === undefined || signature === SKIP_THOUGHT_SIGNATURE) continue;
      if (typeof signature !== "string" || !issued.has(signature)) return "Corrupted thought signature.";
    }
  }
  if (requireSignatures) {
    // The current turn: from the last user turn that is not function responses only.
    let start = 0;
    for (const [i, content] of contents.entries()) {
      if (content.role === "user" && partsOf(content).some((part) => typeof part.text === "string")) start = i;
    }
    for (let i = start; i < contents.length; i++) {
      const parts = partsOf(contents[i]);
      const first = parts.findIndex((part) => part.functionCall);
      if (contents[i]?.role !== "model" || first === -1) continue;
      if (parts[first]?.thoughtSignature === undefined) {
        return (
          "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, " +
          "and missing thought_signature may lead to degraded model performance. Additional data, function call " +
          `\`default_api:${String(parts[first]?.functionCall?.name)}\` , position ${first + 1}. ` +
          "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
        );
      }
    }
  }
  return null;
}

function partsOf(content: Content | undefined): Part[] {
  return Array.isArray(content?.parts) ? (content.parts as Part[]) : [];
}
