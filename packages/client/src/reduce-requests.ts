import type { ProtocolEvent, ResolvedRequest, SessionSnapshot } from "@hitl-kit/protocol";
import {
  isOpen,
  type RequestError,
  type RequestState,
  type SentAnswer,
  type SettledRequestState,
  type TypedInputRequest,
} from "./request-state.js";

type Requests = Readonly<Record<string, RequestState>>;

/** What the wire says about a settlement: `input.resolved`, a snapshot's resolved request, or an `already_resolved` refusal. */
export type WireResolution = ResolvedRequest["resolution"];

/**
 * The settled state a resolution puts a request in; only an accepted one keeps a value.
 * @example
 * settledState(request, { action: "decline", reason: "Too late" });
 * // { request, status: "declined", resolution: { action: "decline", reason: "Too late" } }
 */
export function settledState(request: TypedInputRequest, resolution: WireResolution): SettledRequestState {
  const { action, value, reason, reasonCode } = resolution;
  const why = reason === undefined ? {} : { reason };
  switch (action) {
    case "accept":
      return { request, status: "resolved", resolution: { action, value, ...why } };
    case "decline":
      return { request, status: "declined", resolution: { action, ...why } };
    case "cancel":
      return { request, status: "cancelled", resolution: { action, ...why, ...(reasonCode && { reasonCode }) } };
    case "expire":
      return { request, status: "expired", resolution: { action, ...why } };
    default:
      return assertNever(action);
  }
}

/**
 * The requests after one event: `input.requested` opens requests, `input.resolved` settles
 * one. Every other event returns the same object, so a text delta costs nothing here.
 */
export function requestsAfterEvent(requests: Requests, event: ProtocolEvent): Requests {
  switch (event.type) {
    case "input.requested": {
      const fresh = event.requests.filter((request) => !requests[request.requestId]);
      if (fresh.length === 0) return requests;
      const next = { ...requests };
      for (const request of fresh) next[request.requestId] = { request, status: "pending" };
      return next;
    }
    case "input.resolved": {
      const current = requests[event.requestId];
      if (!current) return requests;
      return { ...requests, [event.requestId]: settledState(current.request, event) };
    }
    case "session.created":
    case "turn.started":
    case "message.started":
    case "text.delta":
    case "reasoning.delta":
    case "message.completed":
    case "message.abandoned":
    case "tool.called":
    case "tool.result":
    case "turn.waiting":
    case "turn.completed":
    case "turn.failed":
    case "turn.cancelled":
      return requests;
    default:
      return assertNever(event);
  }
}

/** Adds the snapshot's requests that are not tracked yet: open ones as `pending`, settled ones with their resolution. */
export function requestsFromSnapshot(requests: Requests, snapshot: SessionSnapshot): Requests {
  const fresh = snapshot.pending.filter((request) => !requests[request.requestId]);
  const settled = (snapshot.resolved ?? []).filter(({ request }) => !requests[request.requestId]);
  if (fresh.length === 0 && settled.length === 0) return requests;
  const next = { ...requests };
  for (const { request, resolution } of settled) next[request.requestId] = settledState(request, resolution);
  for (const request of fresh) next[request.requestId] = { request, status: "pending" };
  return next;
}

/**
 * Marks an open request's answer as in flight, with the answer sent; a settled or unknown
 * request, or one already submitting, is left alone.
 */
export function markSubmitting(requests: Requests, requestId: string, sent: SentAnswer): Requests {
  const current = requests[requestId];
  if (!isOpen(current) || current.status === "submitting") return requests;
  return { ...requests, [requestId]: { request: current.request, status: "submitting", sent } };
}

/**
 * Opens a request again with the reason its answer was refused; or, refused because it was
 * settled another way (`already_resolved`, from another tab), settles it as the server says
 * (`won`). A request settled in the meantime stays settled: the server's `input.resolved` is the truth.
 */
export function markFailed(
  requests: Requests,
  { requestId, error, won }: { requestId: string; error: RequestError; won?: WireResolution | false },
): Requests {
  const current = requests[requestId];
  if (!isOpen(current)) return requests;
  return {
    ...requests,
    [requestId]: won ? settledState(current.request, won) : { request: current.request, status: "error", error },
  };
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown event or action: ${JSON.stringify(value)}`);
}
