import { type ProtocolEvent, reduceSession, type SessionSnapshot } from "@hitl-kit/protocol";
import type { ClientAction } from "./client-action.js";
import { type ClientState, commitState, type OutgoingMessage, type StatePatch } from "./client-state.js";
import type { UnsentMessage } from "./outbox-keeper.js";
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
      // A stream opening (or open) is the connection back: its failure is over.
      return commitState(state, {
        connection: action.connection,
        ...(action.connection === "connecting" || action.connection === "open"
          ? { error: withoutConnectionError(state) }
          : {}),
      });
    case "connection.retrying":
      return commitState(state, { connection: "reconnecting", error: { ...action.error, source: "connection" } });
    case "connection.failed":
      // Nothing more will show the turn end: no Stop stays under way.
      return commitState(state, {
        connection: "closed",
        error: { ...action.error, source: "connection" },
        stopping: false,
      });
    case "message.sending":
      return commitState(state, {
        outbox: [...without(state.outbox, action.key), { key: action.key, text: action.text, status: "sending" }],
        error: keepConnectionError(state),
      });
    case "message.accepted":
      // The stream may have shown its turn already (a repeat of a message taken before); then it leaves the outbox.
      return commitState(state, {
        outbox: updateKey(state.outbox, action.key, (message) =>
          action.shown || state.turnId === action.turnId
            ? undefined
            : { key: message.key, text: message.text, status: "accepted", turnId: action.turnId },
        ),
      });
    case "message.failed":
      return commitState(state, {
        outbox: updateKey(state.outbox, action.key, ({ key, text }) => ({
          key,
          text,
          status: "failed",
          error: action.error,
        })),
      });
    case "message.discarded":
      return commitState(state, { outbox: without(state.outbox, action.key) });
    case "outbox.restored":
      return commitState(state, { outbox: restore(state, action.messages, action.checking ?? false) });
    case "outbox.checked":
      return commitState(state, { outbox: checked(state.outbox, action.messages, action.taken) });
    case "stop.requested":
      // A closed stream will not show the turn end: such a Stop is not shown as under way.
      return commitState(state, { stopping: state.connection !== "closed" });
    case "command.failed":
      return commitState(state, {
        error: action.error,
        ...(action.error.source === "cancelTurn" ? { stopping: false } : {}),
      });
    case "request.submitting":
      return commitState(state, { requests: markSubmitting(state.requests, action.requestId, action.sent) });
    case "request.failed":
      return commitState(state, { requests: markFailed(state.requests, action) });
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
      // Another message's turn ends a Stop, unless this client's message started it: the
      // Stop may have named that turn before the stream showed it. (A turn resumed by
      // answers is the same turn, whose id a client loaded from a snapshot does not know.)
      if (
        state.stopping &&
        event.cause === "message" &&
        event.turnId !== state.turnId &&
        ownMessageIndex(state.outbox, event) < 0
      ) {
        patch.stopping = false;
      }
      patch.turnId = event.turnId;
      patch.error = keepConnectionError(state);
      patch.outbox = afterTurnStarted(state.outbox, event);
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
    outbox: notIn(snapshot, state.outbox),
    requests: requestsFromSnapshot(state.requests, snapshot),
    error: snapshot.error ? { ...snapshot.error, source: "turn" } : keepConnectionError(state),
    hydrated: true,
  };
}

/** The outbox without the messages a page of history holds: they are no longer outgoing, whatever their last answer said. */
function notIn(history: SessionSnapshot, outbox: readonly OutgoingMessage[]): readonly OutgoingMessage[] {
  const inHistory = keysIn(history);
  const outgoing = outbox.filter((message) => !inHistory.has(message.key));
  return outgoing.length === outbox.length ? outbox : outgoing;
}

/** The keys of the person's messages in a snapshot's history. */
function keysIn(snapshot: SessionSnapshot): Set<string> {
  return new Set(snapshot.messages.flatMap((message) => (message.idempotencyKey ? [message.idempotencyKey] : [])));
}

/**
 * The stored unsent messages that are neither in the history nor in the outbox, added to it
 * as not sent, or, while the client asks the server whether it took them, as `checking`.
 */
function restore(
  state: ClientState,
  messages: readonly UnsentMessage[],
  checking: boolean,
): readonly OutgoingMessage[] {
  const known = keysIn(state.session);
  for (const message of state.outbox) known.add(message.key);
  const restored = messages
    .filter(({ key }) => !known.has(key))
    .map(
      (message): OutgoingMessage =>
        checking ? { key: message.key, text: message.text, status: "checking" } : notSent(message),
    );
  return restored.length === 0 ? state.outbox : [...restored, ...state.outbox];
}

/** The outbox once the server said which of the `checking` messages it took: those leave it, the others are not sent. */
function checked(
  outbox: readonly OutgoingMessage[],
  messages: readonly UnsentMessage[],
  taken: readonly string[],
): readonly OutgoingMessage[] {
  const asked = new Map(messages.map((message) => [message.key, message]));
  const took = new Set(taken);
  let changed = false;
  const next = outbox.flatMap((message) => {
    const kept = asked.get(message.key);
    // One sent again meanwhile is on its way: its own answer says what became of it.
    if (message.status !== "checking" || !kept) return [message];
    changed = true;
    return took.has(message.key) ? [] : [notSent(kept)];
  });
  return changed ? next : outbox;
}

function notSent({ key, text, error }: UnsentMessage): OutgoingMessage {
  return { key, text, status: "failed", error: error ?? NOT_SENT_BEFORE_CLOSING };
}

/**
 * Why a restored message that had not failed yet (it was on its way) shows as not sent: the
 * server did not take it, or could not be asked (a transport without `findTakenMessages`, a
 * server too old to answer, one out of reach). Sent again, the server takes it once.
 */
const NOT_SENT_BEFORE_CLOSING = {
  code: "interrupted",
  message: "The chat closed before the server confirmed it.",
};

/** Puts an earlier page of messages before those shown, with the settled requests of their tool calls. */
function prependEarlier(state: ClientState, page: SessionSnapshot): StatePatch {
  const shown = new Set(state.session.messages.map((message) => message.id));
  const earlier = page.messages.filter((message) => !shown.has(message.id));
  const { before: _done, ...session } = state.session;
  return {
    outbox: notIn(page, state.outbox),
    session: {
      ...session,
      messages: [...earlier, ...state.session.messages],
      ...(page.before === undefined ? {} : { before: page.before }),
    },
    requests: requestsFromSnapshot(state.requests, { ...page, pending: [] }),
  };
}

/**
 * A turn that names its message's key takes that message out of the outbox, as does the
 * turn the server said it started. One a server that keeps no keys started for a message
 * is taken for the oldest message still on its way.
 */
function afterTurnStarted(
  outbox: readonly OutgoingMessage[],
  event: Extract<ProtocolEvent, { type: "turn.started" }>,
): readonly OutgoingMessage[] {
  const mine = ownMessageIndex(outbox, event);
  if (mine >= 0) return outbox.filter((_, index) => index !== mine);
  if (event.idempotencyKey !== undefined || event.cause !== "message") return outbox;
  const onItsWay = outbox.findIndex((message) => message.status === "sending");
  return onItsWay < 0 ? outbox : outbox.filter((_, index) => index !== onItsWay);
}

/** The outbox message whose turn this is (by its key, or the turn the server said it started); -1 for none. */
function ownMessageIndex(
  outbox: readonly OutgoingMessage[],
  event: Extract<ProtocolEvent, { type: "turn.started" }>,
): number {
  return outbox.findIndex(
    (message) =>
      message.key === event.idempotencyKey || (message.turnId !== undefined && message.turnId === event.turnId),
  );
}

/** The outbox without the message sent with `key`; the same outbox when there is none. */
function without(outbox: readonly OutgoingMessage[], key: string): readonly OutgoingMessage[] {
  return updateKey(outbox, key, () => undefined);
}

/** Replaces (or, for `undefined`, removes) the message sent with `key`; the same outbox when there is none. */
function updateKey(
  outbox: readonly OutgoingMessage[],
  key: string,
  update: (message: OutgoingMessage) => OutgoingMessage | undefined,
): readonly OutgoingMessage[] {
  const index = outbox.findIndex((message) => message.key === key);
  if (index < 0) return outbox;
  const next = update(outbox[index]!);
  return next ? outbox.map((message, at) => (at === index ? next : message)) : outbox.filter((_, at) => at !== index);
}

function withoutConnectionError(state: ClientState) {
  return state.error?.source === "connection" ? undefined : state.error;
}

function keepConnectionError(state: ClientState) {
  return state.error?.source === "connection" ? state.error : undefined;
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown client action: ${JSON.stringify(value)}`);
}
