/**
 * @hitl-kit/ai-sdk: run the AI SDK's `useChat` on a hitl-kit server. Swap the transport and
 * every approval and client tool becomes a durable parked request with exactly one result.
 * The React parts that render a widget registry in a `useChat` app are in `@hitl-kit/ai-sdk/react`.
 * @packageDocumentation
 */
export { hitlAnswersComplete } from "./answers-complete.js";
export { collectResponses } from "./collect-responses.js";
export { applyHitlSettlement } from "./earlier-settlements.js";
export { type ChunkerSeed, EventChunker } from "./event-chunker.js";
export { type HitlChatTransport, type HitlChatTransportOptions, hitlChatTransport } from "./hitl-chat-transport.js";
export {
  type HitlDataTypes,
  type HitlRequestData,
  type HitlSettledData,
  type HitlSettledPart,
  REQUEST_PART,
  SETTLED_PART,
} from "./request-part.js";
export { type RequestView, type RequestViewStatus, requestPartsOf, requestViewOf } from "./request-view.js";
export type { FetchFunction, HeadersOption, SessionHttpOptions } from "./session-http.js";
export { memorySessionMap, type SessionMap } from "./session-map.js";
export { snapshotToUIMessages } from "./snapshot-chunks.js";
export type { HitlUITools } from "./ui-tools.js";
