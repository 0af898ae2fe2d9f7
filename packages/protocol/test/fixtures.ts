import type { ProtocolEvent } from "../src/index.js";

const at = "2026-11-22T10:00:00.000Z";
const sessionId = "s_1";

/**
 * One event of every type of protocol v1: a parked picker, answered, then a completed turn,
 * a failed one, a cancelled one, and an abandoned message.
 */
export const everyEventType: ProtocolEvent[] = [
  { seq: 1, sessionId, at, type: "session.created" },
  { seq: 2, sessionId, at, type: "turn.started", turnId: "t_1", cause: "message" },
  { seq: 3, sessionId, at, type: "message.started", messageId: "m_user", role: "user" },
  { seq: 4, sessionId, at, type: "text.delta", messageId: "m_user", delta: "make me a poster" },
  { seq: 5, sessionId, at, type: "message.completed", messageId: "m_user" },
  { seq: 6, sessionId, at, type: "message.started", messageId: "m_1", role: "assistant" },
  { seq: 7, sessionId, at, type: "reasoning.delta", messageId: "m_1", delta: "They want a poster." },
  { seq: 8, sessionId, at, type: "text.delta", messageId: "m_1", delta: "Pick a " },
  { seq: 9, sessionId, at, type: "text.delta", messageId: "m_1", delta: "template." },
  {
    seq: 10,
    sessionId,
    at,
    type: "tool.called",
    messageId: "m_1",
    toolCallId: "call_1",
    toolName: "pick_template",
    input: { templates: [{ id: "a" }, { id: "b" }] },
  },
  {
    seq: 11,
    sessionId,
    at,
    type: "input.requested",
    requests: [
      {
        requestId: "r_1",
        toolCallId: "call_1",
        toolName: "pick_template",
        kind: "input",
        prompt: "Choose a template",
        input: { templates: [{ id: "a" }, { id: "b" }] },
        answerSchema: { type: "object", properties: { templateId: { type: "string" } }, required: ["templateId"] },
      },
    ],
  },
  { seq: 12, sessionId, at, type: "turn.waiting", turnId: "t_1", requestIds: ["r_1"] },
  {
    seq: 13,
    sessionId,
    at,
    type: "input.resolved",
    requestId: "r_1",
    toolCallId: "call_1",
    action: "accept",
    value: { templateId: "b" },
  },
  { seq: 14, sessionId, at, type: "tool.result", toolCallId: "call_1", outcome: "ok", output: { templateId: "b" } },
  { seq: 15, sessionId, at, type: "turn.started", turnId: "t_1", cause: "responses" },
  { seq: 16, sessionId, at, type: "message.completed", messageId: "m_1" },
  { seq: 17, sessionId, at, type: "turn.completed", turnId: "t_1" },
  { seq: 18, sessionId, at, type: "turn.started", turnId: "t_2", cause: "message" },
  { seq: 19, sessionId, at, type: "turn.failed", turnId: "t_2", error: { code: "model_error", message: "overloaded" } },
  { seq: 20, sessionId, at, type: "turn.started", turnId: "t_3", cause: "message" },
  { seq: 21, sessionId, at, type: "turn.cancelled", turnId: "t_3" },
  // A message cut off by a crash, which the restarted server abandons before it runs the step again.
  { seq: 22, sessionId, at, type: "message.started", messageId: "m_2", role: "assistant" },
  { seq: 23, sessionId, at, type: "text.delta", messageId: "m_2", delta: "Half a sen" },
  { seq: 24, sessionId, at, type: "message.abandoned", messageId: "m_2" },
];
