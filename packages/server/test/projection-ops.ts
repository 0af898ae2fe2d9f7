import type { EventInput, InputRequest, ResolutionAction } from "@hitl-kit/protocol";
import fc from "fast-check";
import type { RequestRecord, ToolCallRecord, WriteBatch } from "../src/index.js";

/** One step of a session's life, as the runtime writes it; steps that make no sense at a point are skipped. */
export type ProjectionOp =
  | { kind: "user"; text: string }
  | { kind: "start" }
  | { kind: "delta"; text: string; reasoning: boolean }
  | { kind: "complete"; calls: number }
  | { kind: "abandon" }
  | { kind: "request"; pick: number }
  | { kind: "resolve"; pick: number; action: ResolutionAction }
  | { kind: "result"; pick: number }
  | { kind: "turn"; ending: "turn.started" | "turn.waiting" | "turn.completed" | "turn.failed" | "turn.cancelled" };

const words = fc.constantFrom("a", "bb", "hello ", "ünïcödé ", "\n", "x".repeat(40));

/** Random operations: messages streamed, completed with tool calls or cut off, requests parked and settled, turns. */
export const projectionOps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("user" as const), text: words }),
    fc.record({ kind: fc.constant("start" as const) }),
    fc.record({ kind: fc.constant("delta" as const), text: words, reasoning: fc.boolean() }),
    fc.record({ kind: fc.constant("delta" as const), text: words, reasoning: fc.boolean() }),
    fc.record({ kind: fc.constant("complete" as const), calls: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant("abandon" as const) }),
    fc.record({ kind: fc.constant("request" as const), pick: fc.nat() }),
    fc.record({
      kind: fc.constant("resolve" as const),
      pick: fc.nat(),
      action: fc.constantFrom<ResolutionAction>("accept", "decline", "cancel", "expire"),
    }),
    fc.record({ kind: fc.constant("result" as const), pick: fc.nat() }),
    fc.record({
      kind: fc.constant("turn" as const),
      ending: fc.constantFrom(
        "turn.started" as const,
        "turn.waiting" as const,
        "turn.completed" as const,
        "turn.failed" as const,
        "turn.cancelled" as const,
      ),
    }),
  ),
  { maxLength: 60 },
);

/**
 * Turns operations into the write batches a runtime would make: events with the tool
 * calls and requests they refer to, so the store can place tool events in their messages.
 */
export function batchesOf(ops: readonly ProjectionOp[]): WriteBatch[] {
  let counter = 0;
  const next = (prefix: string) => `${prefix}_${++counter}`;
  let streaming: string | undefined;
  const calls: { call: ToolCallRecord; request?: InputRequest; settled?: boolean; done: boolean }[] = [];
  const batches: WriteBatch[] = [];
  const push = (events: EventInput[], extra: Omit<WriteBatch, "events"> = {}) => batches.push({ events, ...extra });

  for (const op of ops) {
    switch (op.kind) {
      case "user": {
        const messageId = next("msg");
        push([
          { type: "message.started", messageId, role: "user" },
          { type: "text.delta", messageId, delta: op.text },
          { type: "message.completed", messageId },
        ]);
        break;
      }
      case "start":
        if (streaming) break;
        streaming = next("msg");
        push([{ type: "message.started", messageId: streaming, role: "assistant" }]);
        break;
      case "delta":
        if (!streaming) break;
        push([{ type: op.reasoning ? "reasoning.delta" : "text.delta", messageId: streaming, delta: op.text }]);
        break;
      case "complete": {
        if (!streaming) break;
        const messageId = streaming;
        const made = Array.from({ length: op.calls }, (_, index): ToolCallRecord => {
          const toolCallId = next("call");
          return {
            toolCallId,
            turnId: "turn",
            step: 1,
            index,
            toolName: "t",
            messageId,
            input: { n: index },
            state: "ready",
          };
        });
        for (const call of made) calls.push({ call, done: false });
        push(
          [
            ...made.map(
              (call): EventInput => ({
                type: "tool.called",
                messageId,
                toolCallId: call.toolCallId,
                toolName: "t",
                input: call.input,
              }),
            ),
            { type: "message.completed", messageId },
          ],
          { toolCalls: made },
        );
        streaming = undefined;
        break;
      }
      case "abandon":
        if (!streaming) break;
        push([
          { type: "message.completed", messageId: streaming },
          { type: "message.abandoned", messageId: streaming },
        ]);
        streaming = undefined;
        break;
      case "request": {
        const open = calls.filter((entry) => !entry.done && !entry.request);
        const entry = open[op.pick % Math.max(1, open.length)];
        if (!entry) break;
        const requestId = next("req");
        entry.request = {
          requestId,
          toolCallId: entry.call.toolCallId,
          toolName: "t",
          kind: "input",
          input: entry.call.input,
          answerSchema: { type: "object" },
        };
        push([{ type: "input.requested", requests: [entry.request] }], {
          requests: [record(entry.request, "open")],
          toolCalls: [{ ...entry.call, state: "parked", requestId }],
        });
        break;
      }
      case "resolve": {
        // A request settles once: the stores' guard (`requireOpen`) refuses a second settlement.
        const parked = calls.filter((entry) => entry.request && !entry.settled && !entry.done);
        const entry = parked[op.pick % Math.max(1, parked.length)];
        if (!entry?.request) break;
        entry.settled = true;
        const value = op.action === "accept" ? { picked: entry.request.requestId } : undefined;
        const reason = op.action === "decline" ? "not this one" : undefined;
        const at = new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString();
        push(
          [
            {
              type: "input.resolved",
              requestId: entry.request.requestId,
              toolCallId: entry.call.toolCallId,
              action: op.action,
              ...(value === undefined ? {} : { value }),
              ...(reason === undefined ? {} : { reason }),
            },
          ],
          {
            requests: [
              {
                ...record(entry.request, "settled"),
                resolution: {
                  action: op.action,
                  at,
                  ...(value === undefined ? {} : { value }),
                  ...(reason === undefined ? {} : { reason }),
                },
              },
            ],
          },
        );
        counter++;
        break;
      }
      case "result": {
        const running = calls.filter((entry) => !entry.done);
        const entry = running[op.pick % Math.max(1, running.length)];
        if (!entry) break;
        entry.done = true;
        push([{ type: "tool.result", toolCallId: entry.call.toolCallId, outcome: "ok", output: { done: true } }]);
        break;
      }
      case "turn":
        push([
          op.ending === "turn.started"
            ? { type: op.ending, turnId: "turn", cause: "message" }
            : op.ending === "turn.waiting"
              ? { type: op.ending, turnId: "turn", requestIds: [] }
              : op.ending === "turn.failed"
                ? { type: op.ending, turnId: "turn", error: { code: "model_error", message: "no" } }
                : { type: op.ending, turnId: "turn" },
        ]);
        break;
    }
  }
  return batches;
}

function record(request: InputRequest, state: "open" | "settled"): RequestRecord {
  return {
    requestId: request.requestId,
    toolCallId: request.toolCallId,
    turnId: "turn",
    request,
    schemaHash: "h",
    state,
  };
}
