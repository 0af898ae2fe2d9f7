import { type ProtocolEvent, reduceSession, type SessionSnapshot } from "@hitl-kit/protocol";
import type { ClientAction } from "./client-action.js";
import { type ClientState, commitState, type StatePatch } from "./client-state.js";
import { markFailed, markSubmitting, requestsAfterEvent, requestsFromSnapshot } from "./reduce-requests.js";

/**
 * The client's reducer: pure, with structural sharing. Events go through the protocol's
 * `reduceSession` (so an event at or below `lastSeq` returns the same state), requests
 * through their own transitions; client actions track commands and the connection.
 * @example
 * const state = events.map((event) => ({ type: "event", event }) as const).reduce(reduceClientState, initialClientState());
 */
export function reduceClientState(state: ClientState, action: ClientAction): ClientState {
  switch (action.type) {
    case "event":
      return applyEvent(state, action.event);
    case "snapshot.loaded":
      return commitState(state, hydrate(state, action.snapshot));
    case "earlier.loaded":
      return commitState(state, prependEarlier(state, action.page));
    case "session.created":
      return commitState(state, { sessionId: action.sessionId });
    case "connection.changed":
      return commitState(state, { connection: action.connection });
    case "connection.failed":
      return commitState(state, { connection: "closed", error: { ...action.error, source: "connection" } });
    case "message.sending":
      return commitState(state, {
        sending: action.key === undefined ? {} : { key: action.key },
        error: keepConnectionError(state),
      });
    case "message.accepted": {
      const { sending } = state;
      // Accepted after a later message was sent: that one is still on its way.
      if (!sending || (action.key !== undefined && sending.key !== undefined && sending.key !== action.key))
        return state;
      return commitState(state, {
        sending: state.turnId === action.turnId ? undefined : { ...sending, turnId: action.turnId },
      });
    }
    case "command.failed": {
      // A later message still on its way stays so.
      const later = action.key !== undefined && state.sending?.key !== undefined && state.sending.key !== action.key;
      return commitState(state, {
        error: action.error,
        ...(action.error.source === "send" && !later ? { sending: undefined } : {}),
      });
    }
    case "request.submitting":
      return commitState(state, { requests: markSubmitting(state.requests, action.requestId, action.sent) });
    case "request.failed":
      return commitState(state, { requests: markFailed(state.requests, action.requestId, action.error) });
    default:
      return assertNever(action);
  }
}

function applyEvent(state: ClientState, event: ProtocolEvent): ClientState {
  const session = reduceSession(state.session, event);
  if (session === state.session) return state;
  const patch: StatePatch = { session, requests: requestsAfterEvent(state.requests, event) };
  switch (event.type) {
    case "session.created":
      if (state.sessionId === undefined) patch.sessionId = event.sessionId;
      break;
    case "turn.started": {
      patch.turnId = event.turnId;
      patch.error = keepConnectionError(state);
      const { sending } = state;
      // A turn that names its message's key is that message's; one that names none (a
      // server that keeps no keys) is taken for the message on its way.
      const ours =
        sending &&
        (sending.turnId === event.turnId ||
          (event.idempotencyKey === undefined
            ? sending.turnId === undefined
            : event.idempotencyKey === sending.key && sending.key !== undefined));
      if (ours) patch.sending = undefined;
      break;
    }
    case "turn.failed":
      patch.error = { ...event.error, source: "turn" };
      break;
  }
  return commitState(state, patch);
}

function hydrate(state: ClientState, snapshot: SessionSnapshot): StatePatch {
  if (state.lastSeq >= snapshot.lastSeq && (state.hydrated || state.lastSeq > 0)) return { hydrated: true };
  return {
    sessionId: snapshot.sessionId,
    session: snapshot,
    requests: requestsFromSnapshot(state.requests, snapshot),
    error: snapshot.error ? { ...snapshot.error, source: "turn" } : keepConnectionError(state),
    hydrated: true,
  };
}

/** Puts an earlier page of messages before those shown, with the settled requests of their tool calls. */
function prependEarlier(state: ClientState, page: SessionSnapshot): StatePatch {
  const shown = new Set(state.session.messages.map((message) => message.id));
  const earlier = page.messages.filter((message) => !shown.has(message.id));
  const { before: _done, ...session } = state.session;
  return {
    session: {
      ...session,
      messages: [...earlier, ...state.session.messages],
      ...(page.before === undefined ? {} : { before: page.before }),
    },
    requests: requestsFromSnapshot(state.requests, { ...page, pending: [] }),
  };
}

function keepConnectionError(state: ClientState) {
  return state.error?.source === "connection" ? state.error : undefined;
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown client action: ${JSON.stringify(value)}`);
}
