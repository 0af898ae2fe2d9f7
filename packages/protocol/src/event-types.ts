/**
 * Every event type of the wire protocol, in the order DESIGN.md lists them (`message.abandoned`,
 * added later, beside `message.completed`). A plain list, so
 * code that only needs the names (a browser skipping types it does not know) does not
 * load the schemas.
 */
export const EVENT_TYPES = [
  "session.created",
  "turn.started",
  "message.started",
  "text.delta",
  "reasoning.delta",
  "message.completed",
  "message.abandoned",
  "tool.called",
  "input.requested",
  "input.resolved",
  "tool.result",
  "turn.waiting",
  "turn.completed",
  "turn.failed",
  "turn.cancelled",
] as const;
