import type { AskOptions, AskResult } from "@hitl-kit/server";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** What an MCP server asks for: the `params` of its `elicitation/create` request. */
export type ElicitationParams = ElicitRequest["params"];

/**
 * The annotation a URL-mode elicitation's answer schema carries, so a registered widget can
 * show the link (the fallback form shows the prompt, which names the URL as text).
 */
export const urlElicitationKeyword = "x-mcp-elicitation";

/** What {@link urlElicitationKeyword} holds. */
export interface UrlElicitationAnnotation {
  /** Always `url`: the elicitation's mode. */
  mode: "url";
  /** The URL the MCP server asks the person to visit. */
  url: string;
  /** The MCP server's id for the elicitation, as in its `elicitation/create` params. */
  elicitationId: string;
}

/**
 * The hitl-kit question for an elicitation. Form mode: the prompt is the elicitation's
 * message and the answer schema is its `requestedSchema`, closed to other fields (so the
 * person's answer is checked against it before it leaves). URL mode: the prompt is the
 * message and the URL, and the answer is an empty object — accepting says the person went
 * to the link.
 */
export function elicitationQuestion(params: ElicitationParams): Pick<AskOptions, "prompt" | "schema"> {
  if (params.mode === "url") {
    const annotation: UrlElicitationAnnotation = { mode: "url", url: params.url, elicitationId: params.elicitationId };
    return {
      prompt: `${params.message}\n${params.url}`,
      schema: { type: "object", properties: {}, additionalProperties: false, [urlElicitationKeyword]: annotation },
    };
  }
  // An elicitation's answer holds the requested fields alone: the MCP server refuses others.
  return { prompt: params.message, schema: { ...params.requestedSchema, additionalProperties: false } };
}

/**
 * The `ElicitResult` for the person's answer: accept (with the checked answer as the
 * content in form mode), decline or cancel; an expired request is a cancel, since nobody chose.
 */
export function elicitResult(answer: AskResult<unknown>, mode: "form" | "url"): ElicitResult {
  switch (answer.action) {
    case "accept":
      return mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: answer.value as ElicitResult["content"] };
    case "decline":
      return { action: "decline" };
    case "cancel":
    case "expire":
      return { action: "cancel" };
  }
}
