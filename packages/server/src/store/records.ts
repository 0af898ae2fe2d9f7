import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type {
  EventInput,
  InputRequest,
  ProtocolEvent,
  ReasonCode,
  ResolutionAction,
  SessionSnapshot,
  ToolOutcome,
} from "@hitl-kit/protocol";
import type { Coordination } from "../runtime/coordination.js";
import type { SnapshotPage } from "./project-events.js";

/**
 * Where a session's turn is, durably: `running` (the runtime is calling the model or
 * running tools), `waiting` (parked on open requests), `resuming` (every request of the
 * step is settled; the turn must continue — after a crash, on start) or `idle`.
 */
export type TurnState = "idle" | "running" | "waiting" | "resuming";

/** A session's durable state, beside its event log. */
export interface SessionRecord {
  /** The session's id (`ses_` and 22 random characters), minted by the runtime's `createSession`. */
  sessionId: string;
  /**
   * The principal that created the session and alone may reach it over HTTP. `undefined`
   * for a session created without one (by server code, or before owners existed): the
   * fetch handler shows it to no one.
   */
  owner?: string;
  /** When the session was created, as an ISO 8601 time. */
  createdAt: string;
  /** When the session last changed (an event or a change of state): what retention measures idleness by. */
  updatedAt: string;
  /** Where the session's turn is: see {@link TurnState}. */
  status: TurnState;
  /** The current (or last) turn. */
  turnId?: string;
  /** How many model calls the current turn has made. */
  step: number;
  /** The last step's tool calls have not all had their results appended to the transcript. */
  stepOpen: boolean;
  /** Tools the person approved in this session (for `once()`). */
  approvedTools: string[];
  /**
   * The last few messages sent with an `Idempotency-Key`, oldest first: each key, a digest
   * of its text and the turn it started, so the same message sent again is recognized as a
   * repeat (even after later messages overtook it).
   */
  keyedMessages?: KeyedMessage[];
  /**
   * The turn (its id) a person asked to stop, kept before the stop is passed on: whoever
   * drives that turn next ends it as cancelled instead of going on, should the instance that
   * took the cancel die (or restart) before the turn stopped.
   */
  cancelRequested?: string;
  /** The first words of the first message, for session lists. */
  title?: string;
  /** The `seq` of the session's newest event; 0 before its first (the store assigns it). */
  lastSeq: number;
  /** How many model messages the transcript holds (kept by the store). */
  transcriptLength: number;
}

/** A message that came with an `Idempotency-Key`, as its session remembers it. */
export interface KeyedMessage {
  /** The client's key. */
  key: string;
  /** The SHA-256 of the message's text (base64url), to refuse the key with another text. */
  digest: string;
  /** The turn the message started. */
  turnId: string;
}

/** A session in a list: enough to show it in a sidebar. */
export type SessionSummary = Pick<
  SessionRecord,
  "sessionId" | "createdAt" | "updatedAt" | "title" | "status" | "lastSeq"
> & {
  /**
   * How many requests wait for the person: a parked turn's, or questions a running tool
   * asked (`ctx.ask`, whose turn stays `running`). A list shows "waiting for you" by it.
   */
  pending: number;
};

/**
 * Where a page of a session list starts: after this session, in the list's order (newest
 * `createdAt` first, then `sessionId` descending).
 */
export interface SessionCursor {
  /** The `createdAt` of the last session of the previous page. */
  createdAt: string;
  /** The `sessionId` of the last session of the previous page, which breaks ties of `createdAt`. */
  sessionId: string;
}

/** Which sessions {@link SessionStore.listSessions} answers. */
export interface ListSessionsOptions {
  /** Only this principal's sessions; `undefined` lists every session (for server-side tools). */
  owner?: string;
  /** At most this many (default 50). */
  limit?: number;
  /** Only sessions after this one in the list's order: the next page. */
  after?: SessionCursor;
}

/**
 * Where one tool call is: `parked` on a request, `ready` for server-side work (execute,
 * or a client tool's `resolve`), `executing` (that work started), or `done` with its one
 * result.
 */
export type ToolCallState = "parked" | "ready" | "executing" | "done";

/** One tool call of a turn's step. */
export interface ToolCallRecord {
  /** The call's id as the model wrote it, or a new `call_…` id when the model's was empty or already used in the session. */
  toolCallId: string;
  /** The turn whose step made the call. */
  turnId: string;
  /** Which model call of the turn made it, from 1 (the turn's `SessionRecord.step` after that call). */
  step: number;
  /** Position in the step, so results reach the model in call order. */
  index: number;
  /** The tool's name, as the model called it (it may name no registered tool: the call then ends in an `error`). */
  toolName: string;
  /** The assistant message the call is a part of. */
  messageId?: string;
  /** The input as the tool's input schema accepted it; for a call that failed at once, what the model wrote. */
  input: unknown;
  /** Where the call is: see {@link ToolCallState}. */
  state: ToolCallState;
  /** The request the call parked on (client tools, and server tools that wait for approval). */
  requestId?: string;
  /** The person's accepted answer (client tools) or approval note, for the server-side work. */
  answer?: unknown;
  /**
   * How many times the tool started on the call: absent until a server ran it again after
   * the one running it stopped (`rerunAfterRestart`), which counts from 2.
   */
  runs?: number;
  /**
   * Of those runs, how many ended because their server closed (or left the turn) on purpose,
   * not in a crash: they do not count against the limit of runs (`rerunAfterRestart`).
   */
  left?: number;
  /**
   * For a tool run again after a restart (`rerunAfterRestart`): a random value, drawn when
   * the call starts, its questions' ids are made from, so a later run's question finds the
   * earlier run's in its place. Never sent to a client.
   */
  questionSeed?: string;
  /** How the call ended; set with `output` once it is `done`. */
  outcome?: ToolOutcome;
  /** The call's one result (JSON), as its `tool.result` event carries it; set once it is `done`. */
  output?: unknown;
}

/** How a request was settled. */
export interface Resolution {
  /** What settled it: the person's `accept`, `decline` or `cancel`, or `expire` when its time ran out. */
  action: ResolutionAction;
  /** For `accept`: the answer as the answer schema checked (and may have transformed) it. */
  value?: unknown;
  /** The person's note, when the response gave one (or why the runtime cancelled the request). */
  reason?: string;
  /** The kind of the runtime's reason for a cancel, for a UI to say in the person's language. */
  reasonCode?: ReasonCode;
  /** When it was settled, as an ISO 8601 time. */
  at: string;
}

/** A resolution as the wire carries it (`input.resolved`, a snapshot's settled request, a respond's answer): without `at`. */
export function wireResolution({ at, ...wire }: Resolution): Omit<Resolution, "at"> {
  return wire;
}

/** A parked request and, once settled, its one resolution. */
export interface RequestRecord {
  /** The request's id (`req_` and 22 random characters), minted when the request is parked; responses name it. */
  requestId: string;
  /** The parked tool call's id. */
  toolCallId: string;
  /** The turn that parked the request. */
  turnId: string;
  /** The request as sent to the client in `input.requested`. */
  request: InputRequest;
  /** Hash of the answer schema the request was parked with. */
  schemaHash: string;
  /** `open` until its one settlement, then `settled` for good. */
  state: "open" | "settled";
  /** How it was settled; present exactly when `state` is `settled`. */
  resolution?: Resolution;
  /** Epoch milliseconds, when the request expires. */
  expiresAt?: number;
  /** Epoch milliseconds, when the request was parked; absent on one an earlier version of the runtime parked. */
  parkedAt?: number;
  /**
   * Asked by a running server tool (`ctx.ask`): settling it answers the tool, which goes
   * on; the call gets its result from the tool, not from the settlement.
   */
  asked?: true;
}

/**
 * Changes applied to one session atomically: all of them, or — when a guard fails — none.
 * A batch that applies sets the session's `updatedAt` to the time of its events.
 */
export interface WriteBatch {
  /** Events to append; the store assigns `seq`, `sessionId` and `at`. */
  events?: EventInput[];
  /** Session fields to change; the store keeps `lastSeq`, `updatedAt` and `transcriptLength` itself. */
  session?: Partial<
    Pick<
      SessionRecord,
      "status" | "turnId" | "step" | "stepOpen" | "approvedTools" | "title" | "keyedMessages" | "cancelRequested"
    >
  >;
  /** Model messages to append to the transcript. */
  transcript?: LanguageModelV4Message[];
  /** Tool calls to insert or replace (by id). */
  toolCalls?: ToolCallRecord[];
  /** Requests to insert or replace (by id). */
  requests?: RequestRecord[];
  /** Guard: every one of these requests must still be open. */
  requireOpen?: string[];
  /** Guard: the session must be in one of these states. */
  requireStatus?: TurnState[];
  /**
   * Guard: the session's turn lease is held by this holder (`TurnLeases.holder`) and
   * has not lapsed, so a driver that lost its turn writes nothing more. A store several
   * instances share checks it in the same step as the write; a store of one process
   * ignores it, since its one process holds every lease.
   */
  requireLease?: string;
}

/** What a write did. */
export type WriteResult =
  | { ok: true; events: ProtocolEvent[] }
  | { ok: false; reason: "settled"; requests: RequestRecord[] }
  | { ok: false; reason: "status"; status: TurnState }
  | { ok: false; reason: "lease" }
  | { ok: false; reason: "not_found" };

/** A new session's record: idle, no turn yet, created now. */
export function idleSession(sessionId: string, owner?: string): Parameters<SessionStore["createSession"]>[0] {
  return {
    sessionId,
    ...(owner === undefined ? {} : { owner }),
    createdAt: new Date().toISOString(),
    status: "idle",
    step: 0,
    stepOpen: false,
    approvedTools: [],
  };
}

/**
 * Where sessions live. One contract, several implementations (`memoryStore`,
 * `sqliteStore`); the same test suite runs against each. Writes are atomic per batch, and
 * each keeps a projection of the session as the person sees it — its state, its open
 * requests and its messages — in the same transaction, so reads cost what they return,
 * not the session's history.
 */
export interface SessionStore {
  /** Stores a new session; its `updatedAt` starts at `createdAt`. Rejects an id in use with `Session <id> exists already.`, keeping that session. */
  createSession(session: Omit<SessionRecord, "lastSeq" | "updatedAt" | "transcriptLength">): Promise<void>;
  /** The session's record, or `undefined` when there is no such session. */
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Newest `createdAt` first, ties by `sessionId` descending: a total order, so pages never skip or repeat. */
  listSessions(options?: ListSessionsOptions): Promise<SessionSummary[]>;
  /** How many sessions a principal owns. */
  countSessions(owner: string): Promise<number>;
  /** Removes a session and everything in it (events, transcript, calls, requests). Resolves `false` when there was none. */
  deleteSession(sessionId: string): Promise<boolean>;
  /** Sessions whose `updatedAt` is before `updatedBefore` (an ISO time), oldest first, at most `limit`. */
  listIdleSessions(updatedBefore: string, limit?: number): Promise<string[]>;
  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<ProtocolEvent[]>;
  /**
   * The session as the person sees it, from the projection: its state, its open requests,
   * a page of its newest messages (before `page.before`) and the settled requests of their
   * tool calls — what folding its whole log with `reduceSession` gives, for that page.
   */
  readSnapshot(sessionId: string, page?: SnapshotPage): Promise<SessionSnapshot | undefined>;
  /** Messages that started and never completed (a crash or an abort cut them off). */
  streamingMessageIds(sessionId: string): Promise<string[]>;
  /** The model transcript from message `from` (default 0) on. */
  readTranscript(sessionId: string, from?: number): Promise<LanguageModelV4Message[]>;
  /** The tool calls of one step of a turn, in call order (`index`): what the runtime settles, runs and answers the model with. */
  getToolCalls(sessionId: string, turnId: string, step: number): Promise<ToolCallRecord[]>;
  /** One request of the session, open or settled; `undefined` when the session has no such request. */
  getRequest(sessionId: string, requestId: string): Promise<RequestRecord | undefined>;
  /** The session's requests still waiting for an answer (none for an unknown session). */
  getOpenRequests(sessionId: string): Promise<RequestRecord[]>;
  /**
   * The turn a message sent with this `Idempotency-Key` started in the session, however long
   * ago (`undefined` when none did): what makes a message sent again under its key a repeat,
   * not a second turn, after the session has moved on.
   */
  findKeyedTurn(sessionId: string, key: string): Promise<string | undefined>;
  /** Sessions a restarted runtime must continue (`running` or `resuming`). */
  listSessionsToRecover(): Promise<string[]>;
  /** Open requests whose `expiresAt` is at or before `now`, at most `limit`. */
  listExpiredRequests(now: number, limit?: number): Promise<{ sessionId: string; requestId: string }[]>;
  /** The earliest `expiresAt` of any open request. */
  nextExpiry(): Promise<number | undefined>;
  /**
   * Applies a batch atomically and answers the stamped events; when the session is gone
   * or a guard fails, writes nothing and answers why (see {@link WriteResult}).
   */
  write(sessionId: string, batch: WriteBatch): Promise<WriteResult>;
  /**
   * For a store several runtime instances share (`postgresStore`): what makes them act as
   * one — a lock per session across instances, events fanned out across them, one driver per
   * turn. Called once by each runtime, with the runtime's logger for what the store has to
   * say once it is started. A store without it serves one process.
   */
  coordinate?(context?: { logger: Pick<Console, "warn" | "error"> }): Coordination;
  /** Releases the store's connections and files (SQLite commits its queued writes first). `AgentRuntime.close` leaves the store open: close it after that. */
  close(): Promise<void>;
}
