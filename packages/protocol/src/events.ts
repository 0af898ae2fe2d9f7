import * as z from "zod/mini";
import type { EVENT_TYPES } from "./event-types.js";
import { InputRequest, ResolutionAction } from "./requests.js";

/** Who wrote a message. */
export const MessageRole = z.enum(["user", "assistant"]);
/** @see MessageRole */
export type MessageRole = z.infer<typeof MessageRole>;

/** How a tool call ended. Exactly one `tool.result` with one of these follows every `tool.called`. */
export const ToolOutcome = z.enum(["ok", "error", "declined", "cancelled", "expired"]);
/** @see ToolOutcome */
export type ToolOutcome = z.infer<typeof ToolOutcome>;

/** The code and message of a failed turn. */
export const TurnError = z.object({ code: z.string(), message: z.string() });
/** @see TurnError */
export type TurnError = z.infer<typeof TurnError>;

const base = {
  seq: z.int().check(z.nonnegative()),
  sessionId: z.string(),
  at: z.string(),
};

function event<const T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) {
  return z.object({ ...base, type: z.literal(type), ...shape });
}

/** Every event of wire protocol v1, one schema each. */
export const EventSchemas = {
  "session.created": event("session.created", {}),
  "turn.started": event("turn.started", { turnId: z.string(), cause: z.enum(["message", "responses"]) }),
  "message.started": event("message.started", { messageId: z.string(), role: MessageRole }),
  "text.delta": event("text.delta", { messageId: z.string(), delta: z.string() }),
  "reasoning.delta": event("reasoning.delta", { messageId: z.string(), delta: z.string() }),
  "message.completed": event("message.completed", { messageId: z.string() }),
  "message.abandoned": event("message.abandoned", { messageId: z.string() }),
  "tool.called": event("tool.called", {
    messageId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  "input.requested": event("input.requested", { requests: z.array(InputRequest).check(z.minLength(1)) }),
  "input.resolved": event("input.resolved", {
    requestId: z.string(),
    toolCallId: z.string(),
    action: ResolutionAction,
    value: z.optional(z.unknown()),
    reason: z.optional(z.string()),
  }),
  "tool.result": event("tool.result", { toolCallId: z.string(), outcome: ToolOutcome, output: z.unknown() }),
  "turn.waiting": event("turn.waiting", { turnId: z.string(), requestIds: z.array(z.string()) }),
  "turn.completed": event("turn.completed", { turnId: z.string() }),
  "turn.failed": event("turn.failed", { turnId: z.string(), error: TurnError }),
  "turn.cancelled": event("turn.cancelled", { turnId: z.string() }),
} as const satisfies Record<EventType, z.ZodMiniType>; // one schema per listed type, no more

/** The event types of wire protocol v1. */
export type EventType = (typeof EVENT_TYPES)[number];

/** One event of a session's ordered, durable log: a discriminated union on `type`. */
export const ProtocolEvent = z.discriminatedUnion("type", [
  EventSchemas["session.created"],
  EventSchemas["turn.started"],
  EventSchemas["message.started"],
  EventSchemas["text.delta"],
  EventSchemas["reasoning.delta"],
  EventSchemas["message.completed"],
  EventSchemas["message.abandoned"],
  EventSchemas["tool.called"],
  EventSchemas["input.requested"],
  EventSchemas["input.resolved"],
  EventSchemas["tool.result"],
  EventSchemas["turn.waiting"],
  EventSchemas["turn.completed"],
  EventSchemas["turn.failed"],
  EventSchemas["turn.cancelled"],
]);
/** @see ProtocolEvent */
export type ProtocolEvent = z.infer<typeof ProtocolEvent>;

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<ProtocolEvent, { type: T }>;

/** What an event carries beyond the envelope (`seq`, `sessionId`, `at`): what a store is asked to append. */
export type EventInput = ProtocolEvent extends infer E
  ? E extends ProtocolEvent
    ? Omit<E, "seq" | "sessionId" | "at">
    : never
  : never;
