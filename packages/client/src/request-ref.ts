/**
 * What names a request to answer: its id, the request (an `InputRequest`), or its state
 * (a `RequestState`, as in `agent.pending`).
 * @example
 * client.respond(state, { templateId: "calm" }); // or state.request, or state.request.requestId
 */
export type RequestRef = string | { requestId: string } | { request: { requestId: string } };

/** The id of the request a {@link RequestRef} names. */
export function requestIdOf(ref: RequestRef): string {
  if (typeof ref === "string") return ref;
  if ("requestId" in ref && typeof ref.requestId === "string") return ref.requestId;
  if ("request" in ref && typeof ref.request?.requestId === "string") return ref.request.requestId;
  throw new TypeError("Name the request by its id, the request, or its state (an object with requestId or request).");
}
