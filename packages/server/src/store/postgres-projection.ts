import type { ProtocolEvent } from "@hitl-kit/protocol";
import { emptyProjection, type ProjectionState, projectEvents } from "./project-events.js";

/**
 * Applies a batch's events to the session's projection: the messages they touch (read
 * with the session's row) and the projection's new state (JSON, or the stored one when
 * it did not change).
 */
export function projectWrite(
  row: { projection: string; touched: [number, string, string][] | null },
  events: ProtocolEvent[],
) {
  // Deltas (most writes) change only their message: the state is neither read nor written.
  const deltas = events.every((e) => e.type === "text.delta" || e.type === "reasoning.delta");
  const state = deltas ? emptyProjection : (JSON.parse(row.projection) as ProjectionState);
  const messages = (row.touched ?? []).map(([index, , body]) => ({ index, message: JSON.parse(body) }));
  const change = projectEvents(state, messages, events);
  const projection = !deltas && change.state !== state ? JSON.stringify(change.state) : row.projection;
  // Deltas leave the streaming messages as they were, but this write did not read them.
  const streaming = deltas ? undefined : change.state.streaming;
  return { upserts: change.upserts, deleted: change.deleted, projection, streaming };
}
