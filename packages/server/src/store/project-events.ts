import {
  type EventInput,
  type InputRequest,
  type Message,
  ProtocolError,
  type ProtocolEvent,
  reduceSession,
  type SessionSnapshot,
  type SessionStatus,
  type TurnError,
} from "@hitl-kit/protocol";
import { type RequestRecord, wireResolution } from "./records.js";

/**
 * The part of a session's projection every read needs, kept beside the session: what
 * `GET /sessions/:id` answers besides its messages, and where the messages stand.
 */
export interface ProjectionState {
  status: SessionStatus;
  pending: InputRequest[];
  error?: TurnError;
  /** Messages started and not completed (cut off, after a crash). */
  streaming: string[];
  /** The position the next message gets: positions only grow, so they page the history. */
  nextIndex: number;
}

/** A message of the projection, at its position in the session's history. */
export interface ProjectedMessage {
  index: number;
  message: Message;
}

/** The projection of a session before its first event. */
export const emptyProjection: ProjectionState = { status: "idle", pending: [], streaming: [], nextIndex: 0 };

/** The messages a batch of events changes: named by their id, or by one of their tool calls. */
export function messagesTouchedBy(events: readonly EventInput[]): { messageIds: string[]; toolCallIds: string[] } {
  const messageIds = new Set<string>();
  const toolCallIds = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case "text.delta":
      case "reasoning.delta":
      case "message.completed":
      case "message.abandoned":
      case "tool.called":
        messageIds.add(event.messageId);
        break;
      case "input.requested":
        for (const request of event.requests) toolCallIds.add(request.toolCallId);
        break;
      case "input.resolved":
      case "tool.result":
        toolCallIds.add(event.toolCallId);
        break;
      default:
        break;
    }
  }
  // A call made in this batch is found in its own message, loaded by id above.
  for (const event of events) if (event.type === "tool.called") toolCallIds.delete(event.toolCallId);
  return { messageIds: [...messageIds], toolCallIds: [...toolCallIds] };
}

/** What applying a batch's events to a projection changes. */
export interface ProjectionChange {
  state: ProjectionState;
  /** Messages new or changed, at their positions. */
  upserts: ProjectedMessage[];
  /** Messages removed (abandoned). */
  deleted: string[];
}

/**
 * Applies a batch's events to a projection: the protocol's own fold (`reduceSession`) over
 * the state and just the messages the events touch (`messagesTouchedBy`, loaded by the
 * store), so a write costs what it changes, not the session's history. New messages get
 * the next positions, in order.
 */
export function projectEvents(
  state: ProjectionState,
  touched: readonly ProjectedMessage[],
  events: readonly ProtocolEvent[],
): ProjectionChange {
  const first = events[0];
  if (!first) return { state, upserts: [], deleted: [] };
  const positions = new Map(touched.map(({ index, message }) => [message.id, index]));
  const before: SessionSnapshot = {
    sessionId: first.sessionId,
    status: state.status,
    messages: [...touched].sort((a, b) => a.index - b.index).map(({ message }) => message),
    pending: state.pending,
    resolved: [],
    lastSeq: first.seq - 1,
    ...(state.error ? { error: state.error } : {}),
  };
  const after = events.reduce(reduceSession, before);
  const streaming = new Set(state.streaming);
  for (const event of events) {
    if (event.type === "message.started") streaming.add(event.messageId);
    if (event.type === "message.completed" || event.type === "message.abandoned") streaming.delete(event.messageId);
  }
  let nextIndex = state.nextIndex;
  const previous = new Map(before.messages.map((message) => [message.id, message]));
  const upserts: ProjectedMessage[] = [];
  for (const message of after.messages) {
    if (previous.get(message.id) === message) continue;
    upserts.push({ index: positions.get(message.id) ?? nextIndex++, message });
  }
  const kept = new Set(after.messages.map((message) => message.id));
  const unchanged =
    after.status === state.status &&
    after.pending === state.pending &&
    after.error === state.error &&
    nextIndex === state.nextIndex &&
    streaming.size === state.streaming.length &&
    state.streaming.every((id) => streaming.has(id));
  return {
    // The same object when nothing but messages changed, so a store can skip rewriting it.
    state: unchanged
      ? state
      : {
          status: after.status,
          pending: after.pending,
          ...(after.error ? { error: after.error } : {}),
          streaming: [...streaming],
          nextIndex,
        },
    upserts,
    deleted: before.messages.filter((message) => !kept.has(message.id)).map((message) => message.id),
  };
}

/** Which page of a session's messages a snapshot holds. */
export interface SnapshotPage {
  /** Only messages before this position (a previous snapshot's `before`); the newest without it. */
  before?: number;
  /** At most this many messages (default 50). */
  limit?: number;
}

/** The default number of messages in a snapshot. */
export const SNAPSHOT_PAGE = 50;

/** Which page `runtime.getSnapshot` answers: `before` as a snapshot gives it (a string), or as a number. */
export interface SnapshotQuery {
  /** A previous snapshot's `before`, as it is; the newest messages without it. */
  before?: string | number;
  /** At most this many messages (default 50). */
  limit?: number;
}

/**
 * The store's page of a query: `before` as the position it stands for.
 * @throws {ProtocolError} `bad_request` for a `before` no snapshot gives
 */
export function snapshotPageOf({ before, limit }: SnapshotQuery): SnapshotPage {
  const position = typeof before === "string" && /^\d{1,15}$/.test(before) ? Number(before) : before;
  if (position !== undefined && (typeof position !== "number" || !Number.isSafeInteger(position) || position < 0)) {
    throw new ProtocolError("bad_request", `"before" must be a snapshot's "before" as it is, not "${before}".`);
  }
  return { ...(position === undefined ? {} : { before: position }), ...(limit === undefined ? {} : { limit }) };
}

/**
 * A snapshot from a projection: its state, a page of messages (oldest first, each with its
 * position), whether older ones exist, and the settled requests of the page's tool calls.
 */
export function snapshotOf(
  sessionId: string,
  lastSeq: number,
  state: ProjectionState,
  page: readonly ProjectedMessage[],
  olderExist: boolean,
  settled: readonly RequestRecord[],
): SessionSnapshot {
  const resolved = settled
    .filter((record) => record.resolution !== undefined)
    .sort((a, b) => (a.resolution!.at < b.resolution!.at ? -1 : a.resolution!.at > b.resolution!.at ? 1 : 0))
    .map(({ request, resolution }) => ({ request, resolution: wireResolution(resolution!) }));
  return {
    sessionId,
    status: state.status,
    messages: page.map(({ message }) => message),
    pending: state.pending,
    resolved,
    lastSeq,
    ...(state.error ? { error: state.error } : {}),
    ...(olderExist && page[0] ? { before: String(page[0].index) } : {}),
  };
}

/** The request ids of a page's tool parts: the requests whose resolutions a snapshot carries. */
export function requestIdsOf(page: readonly ProjectedMessage[]): string[] {
  return page.flatMap(({ message }) =>
    message.parts.flatMap((part) =>
      part.type === "tool" && part.requestId ? [...(part.asked ?? []), part.requestId] : [],
    ),
  );
}
