import type { ProtocolEvent } from "@hitl-kit/protocol";
import type Database from "better-sqlite3";
import { emptyProjection, messagesTouchedBy, type ProjectionState, projectEvents } from "./project-events.js";
import type { SqliteStatements } from "./sqlite-statements.js";

/**
 * Applies a batch's events to the session's projection: writes the messages they touch,
 * and answers the projection's new state (JSON), or `undefined` when it did not change.
 */
export function updateProjection(
  q: SqliteStatements,
  sessionId: string,
  stored: string | null,
  events: ProtocolEvent[],
): string | undefined {
  // Deltas (most writes) change only their message: the state is neither read nor written.
  const deltas = stored !== null && events.every((e) => e.type === "text.delta" || e.type === "reasoning.delta");
  const state = deltas || stored === null ? emptyProjection : (JSON.parse(stored) as ProjectionState);
  const { messageIds, toolCallIds } = messagesTouchedBy(events);
  const ids = new Set(messageIds);
  for (const id of toolCallIds) {
    const messageId = q.messageOfCall.get(sessionId, id)?.message_id;
    if (messageId) ids.add(messageId);
  }
  const touched = [...ids].flatMap((id) => {
    const row = q.projectedMessage.get(sessionId, id);
    return row ? [{ index: row.idx, message: JSON.parse(row.body) }] : [];
  });
  const change = projectEvents(state, touched, events);
  for (const { index, message } of change.upserts) {
    q.upsertProjected.run(sessionId, index, message.id, JSON.stringify(message));
  }
  for (const id of change.deleted) q.deleteProjected.run(sessionId, id);
  return !deltas && (change.state !== state || stored === null) ? JSON.stringify(change.state) : undefined;
}

/** Builds the projection of sessions stored before it existed: a fold of each one's log, once. */
export function fillProjections(db: Database.Database, q: SqliteStatements): void {
  for (const { session_id: sessionId } of q.unprojected.all()) {
    db.transaction(() => {
      const events = q.allEvents.all(sessionId).map((row) => JSON.parse(row.body) as ProtocolEvent);
      q.setProjection.run(updateProjection(q, sessionId, null, events) ?? JSON.stringify(emptyProjection), sessionId);
    })();
  }
}
