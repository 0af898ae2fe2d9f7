import type { ProtocolEvent, ResolutionAction, SessionSnapshot } from "@hitl-kit/protocol";
import type { RequestError, RequestResolution, RequestState, RequestStatus } from "./request-state.js";

type Requests = Readonly<Record<string, RequestState>>;

const settledStatus: Record<ResolutionAction, RequestStatus> = {
  accept: "resolved",
  decline: "declined",
  cancel: "cancelled",
  expire: "expired",
};

/** Whether a request can still be answered: open, or open again after a refused answer. */
export function isOpen(state: RequestState | undefined): boolean {
  return state?.status === "pending" || state?.status === "submitting" || state?.status === "error";
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
      const resolution: RequestResolution = {
        action: event.action,
        ...(event.value === undefined ? {} : { value: event.value }),
        ...(event.reason === undefined ? {} : { reason: event.reason }),
      };
      return {
        ...requests,
        [event.requestId]: { request: current.request, status: settledStatus[event.action], resolution },
      };
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
  for (const { request, resolution } of settled) {
    next[request.requestId] = { request, status: settledStatus[resolution.action], resolution };
  }
  for (const request of fresh) next[request.requestId] = { request, status: "pending" };
  return next;
}

/** Marks an open request's answer as in flight; a settled or unknown request is left alone. */
export function markSubmitting(requests: Requests, requestId: string): Requests {
  const current = requests[requestId];
  if (!current || !isOpen(current) || current.status === "submitting") return requests;
  return { ...requests, [requestId]: { request: current.request, status: "submitting" } };
}

/**
 * Opens a request again with the reason its answer was refused. A request settled in the
 * meantime stays settled: the server's `input.resolved` is the truth.
 */
export function markFailed(requests: Requests, requestId: string, error: RequestError): Requests {
  const current = requests[requestId];
  if (!current || !isOpen(current)) return requests;
  return { ...requests, [requestId]: { request: current.request, status: "error", error } };
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown event: ${JSON.stringify(value)}`);
}
