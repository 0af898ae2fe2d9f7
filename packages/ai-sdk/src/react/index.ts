/**
 * @hitl-kit/ai-sdk/react: renders hitl-kit's widget registry inside a `useChat` app, for the
 * `data-hitl-request` parts the transport streams.
 * @packageDocumentation
 */

export type { HitlRequestData } from "../request-part.js";
export { type AnswerVerbs, answerVerbs, type ChatAnswers } from "./answer-verbs.js";
export { HitlRequestPart, type HitlRequestPartProps } from "./hitl-request-part.js";
