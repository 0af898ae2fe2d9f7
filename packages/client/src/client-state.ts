import { emptySnapshot, type Message, type SessionSnapshot, type ToolSet } from "@hitl-kit/protocol";
import type { RequestState, RequestStateOf } from "./request-state.js";

/**
 * What the client is doing, as a chat UI shows it. One value, derived from the others:
 * - `connecting`: the session is being hydrated; nothing to show yet.
 * - `idle`: no turn is running; the person may send a message.
 * - `submitting`: a message was sent and its turn has not started yet (see `outbox`).
 * - `streaming`: a turn is running (the model is writing or a tool is executing).
 * - `waiting`: the requests in `pending` wait for the person: the turn is parked on them, or
 *   a running tool asked them (`ctx.ask`). A message sent now cancels them and goes on.
 * - `reconnecting`: the event stream dropped or is offline, or the snapshot could not be
 *   loaded (see `error`); the client is getting it back.
 *
 * While the stream is `paused` (the page is hidden), the status is the last one the stream showed.
 * - `error`: the last turn or command failed (see `error`), or the stream cannot go on.
 */
export type ClientStatus = "connecting" | "idle" | "submitting" | "streaming" | "waiting" | "reconnecting" | "error";

/**
 * The event stream: not open because nobody listens or there is no session yet (`idle`),
 * opening (`connecting`), delivering events (`open`), dropped and being reopened
 * (`reconnecting`), cut off because the browser says the network is gone (`offline`:
 * it reconnects when the network is back), given back because the page has been hidden
 * for `hiddenStreamMs` (`paused`: it reopens, from the last event applied, when the page
 * is shown again or the person acts), or `closed` for good (by `close()` or an error
 * retrying cannot fix).
 */
export type ConnectionState = "idle" | "connecting" | "open" | "reconnecting" | "offline" | "paused" | "closed";

/** A failure the whole session sees (a request's own failures live on its {@link RequestState}). */
export interface ClientError {
  /** The wire code (`turn_running`, `not_found`, `network`, a turn's failure code, …). */
  code: string;
  /** A human-readable description of the failure. */
  message: string;
  /** The error's `details` from the server (or the transport), when it sent any. */
  details?: unknown;
  /** What failed: the event stream or session setup, the turn, `cancelTurn()` or `deleteSession()` (a message's failure is on its {@link OutgoingMessage}). */
  source: "connection" | "turn" | "cancelTurn" | "delete";
}

/**
 * A message this client sent that the event stream has not shown yet, so a chat can show
 * it at once, and show it failed in place. It leaves the outbox when the stream shows its
 * turn (the message is then in `messages`), or when it is discarded.
 */
export interface OutgoingMessage {
  /** Its `Idempotency-Key`: sent again (`send` of the same text), it starts one turn however often it arrives. */
  key: string;
  /** The text, as sent. */
  text: string;
  /**
   * - `sending`: on its way (resent while the connection fails);
   * - `accepted`: the server started `turnId`, which the stream has not shown yet;
   * - `failed`: refused by the server, or every attempt failed (see `error`). The server
   *   may have taken it all the same: if the stream shows its turn, it leaves the outbox;
   * - `checking`: kept unsent by an earlier page, and not in the history loaded: the client
   *   is asking the server whether it took it (it was sent before the loaded page, or never).
   *   Nothing is being sent; taken, it leaves the outbox, otherwise it is `failed`.
   */
  status: "sending" | "accepted" | "failed" | "checking";
  /** The turn it started, once the server said so. */
  turnId?: string;
  /** Why it failed (status `failed`). */
  error?: Omit<ClientError, "source">;
}

/** The client's immutable state. Unchanged messages and requests keep their identity. */
export interface ClientState {
  /** The session's id; `undefined` until the first `send()` creates one. */
  sessionId: string | undefined;
  /** What the client is doing, derived from the other fields (see {@link ClientStatus}). */
  status: ClientStatus;
  /** The event stream's state (see {@link ConnectionState}). */
  connection: ConnectionState;
  /** The transcript: text, reasoning and tool parts, as folded by the protocol. */
  messages: readonly Message[];
  /** Every request seen, by id, settled ones included (to show a resolved widget inline). */
  requests: Readonly<Record<string, RequestState>>;
  /** The requests still open (`pending`, `submitting` or `error`), in the order they were asked. */
  pending: readonly RequestState[];
  /**
   * The last failure the whole session saw; `undefined` when there is none. Sending a message
   * or a new turn starting clears it, unless it is a `connection` error. A message that could
   * not be sent keeps its failure in `outbox`.
   */
  error: ClientError | undefined;
  /** The seq of the last event applied. */
  lastSeq: number;
  /** The protocol's fold of the events (`reduceSession`); `messages` and `lastSeq` mirror it. */
  session: SessionSnapshot;
  /** Whether the first snapshot has been applied (a client with no session yet has nothing to load). */
  hydrated: boolean;
  /** The newest turn's id. */
  turnId: string | undefined;
  /** The messages sent that the stream has not shown yet, oldest first: on their way, accepted, or failed. */
  outbox: readonly OutgoingMessage[];
  /**
   * A Stop is under way: `cancelTurn()` asked the server to stop the turn, and the session
   * has not gone idle yet (nor started another turn; the turn of a message the server took
   * and the stream has not shown yet counts as running). Usually a moment; a tool that does not
   * stop when asked holds the turn up to the server's `abortGraceMs` (5 s by default), and a
   * turn whose server died waits for another to take it over. Show the Stop as under way.
   * A refused `cancelTurn()` clears it (see `error`), as does a stream closed for good.
   */
  stopping: boolean;
}

/**
 * A client's state with its requests typed by a tool map (`createAgentClient<typeof tools>`):
 * narrowing a request on `request.toolName` types its input and answer.
 */
export interface ClientStateOf<Tools extends ToolSet> extends Omit<ClientState, "requests" | "pending"> {
  /** Every request seen, by id, settled ones included; a union over the tools, on `status`. */
  requests: Readonly<Record<string, RequestStateOf<Tools>>>;
  /** The requests still open (`pending`, `submitting` or `error`), in the order they were asked. */
  pending: readonly RequestStateOf<Tools>[];
}

/** The state of a client before anything is known. */
export function initialClientState(sessionId?: string): ClientState {
  const session = emptySnapshot(sessionId ?? "");
  return {
    sessionId,
    status: sessionId === undefined ? "idle" : "connecting",
    connection: "idle",
    messages: session.messages,
    requests: {},
    pending: [],
    error: undefined,
    lastSeq: 0,
    session,
    hydrated: sessionId === undefined,
    turnId: undefined,
    outbox: [],
    stopping: false,
  };
}

/** The fields a reducer step may change; the rest is derived by {@link commitState}. */
export type StatePatch = Partial<
  Pick<
    ClientState,
    "sessionId" | "connection" | "requests" | "error" | "session" | "hydrated" | "turnId" | "outbox" | "stopping"
  >
>;

/**
 * Applies a patch and derives `messages`, `lastSeq`, `pending` and `status`, and ends
 * `stopping` once the session is idle. Returns the previous state itself when nothing
 * changed, so subscribers are not woken for nothing.
 */
export function commitState(previous: ClientState, patch: StatePatch): ClientState {
  const base = { ...previous, ...patch };
  // Over once the session is idle, unless the Stop waits for the turn of a message the server took.
  if (base.stopping && base.hydrated && base.session.status === "idle") {
    base.stopping = base.outbox.some((message) => message.status === "accepted");
  }
  const pendingChanged = base.session.pending !== previous.session.pending || base.requests !== previous.requests;
  const next: ClientState = {
    ...base,
    messages: base.session.messages,
    lastSeq: base.session.lastSeq,
    pending: pendingChanged ? openRequests(base, previous.pending) : previous.pending,
  };
  next.status = statusOf(next);
  for (const key of Object.keys(next) as (keyof ClientState)[]) {
    if (next[key] !== previous[key]) return next;
  }
  return previous;
}

function openRequests(state: ClientState, previous: readonly RequestState[]): readonly RequestState[] {
  const open = state.session.pending.flatMap((request) => {
    const tracked = state.requests[request.requestId];
    return tracked ? [tracked] : [];
  });
  const same = open.length === previous.length && open.every((request, index) => request === previous[index]);
  return same ? previous : open;
}

function statusOf(state: ClientState): ClientStatus {
  if (state.error?.source === "connection" && state.connection === "closed") return "error";
  // Before the snapshot too: its load failed on the way and is being tried again.
  if (state.connection === "reconnecting" || state.connection === "offline") return "reconnecting";
  if (!state.hydrated) return "connecting";
  if (state.outbox.some((message) => message.status === "sending" || message.status === "accepted")) {
    return "submitting";
  }
  // A running tool that asks the person (`ctx.ask`) waits for them as a parked turn does.
  if (state.session.status === "running") return state.session.pending.length ? "waiting" : "streaming";
  if (state.session.status === "waiting") return "waiting";
  return state.error ? "error" : "idle";
}
