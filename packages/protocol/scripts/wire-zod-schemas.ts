import * as z from "zod/mini";
import type { EVENT_TYPES } from "../src/event-types.js";

// The zod/mini definitions of wire protocol v1: the source of the JSON Schemas in
// src/wire-json-schemas.generated.ts (`npm run generate:wire-schemas`), which the browser
// decodes events with and the server checks command bodies with. The types the packages
// export are written out in src/ (events.ts, requests.ts, snapshot.ts, command-bodies.ts,
// error-body.ts) so that no zod reaches a user's types; test/wire-types.test-d.ts proves
// each equals the type inferred here.

/** What a request asks of the person: to approve a server tool call, or to provide an answer. */
export const RequestKind = z.enum(["approval", "input"]);

/**
 * A parked tool call waiting for a person: one request per tool call. `answerSchema` is
 * the JSON Schema the answer's `value` must satisfy; the server checks it again.
 */
export const InputRequest = z.object({
  requestId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  kind: RequestKind,
  prompt: z.optional(z.string()),
  input: z.unknown(),
  answerSchema: z.looseObject({}),
  expiresAt: z.optional(z.string()),
});

/** How a parked request was settled: the person's action, or `expire` when its time ran out. */
export const ResolutionAction = z.enum(["accept", "decline", "cancel", "expire"]);
/** Why the server cancelled a request, beside its reason in English (see `ReasonCode` in src/requests.ts). */
export const ReasonCode = z.enum([
  "new_message",
  "stopped",
  "session_deleted",
  "turn_failed",
  "server_stopped",
  "tool_timeout",
  "tool_failed",
  "tool_finished",
  "question_changed",
]);

/** Who wrote a message. */
export const MessageRole = z.enum(["user", "assistant"]);

/** How a tool call ended. Exactly one `tool.result` with one of these follows every `tool.called`. */
export const ToolOutcome = z.enum(["ok", "error", "declined", "cancelled", "expired"]);

/** The code and message of a failed turn. */
export const TurnError = z.object({ code: z.string(), message: z.string() });

const base = {
  seq: z.int().check(z.nonnegative()),
  sessionId: z.string(),
  at: z.string(),
};

function event<const T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) {
  return z.object({ ...base, type: z.literal(type), ...shape });
}

/** A streamed delta: the wire leaves out its time. */
function streamed<const T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) {
  return z.object({ ...base, at: z.optional(z.string()), type: z.literal(type), ...shape });
}

/** Every event of wire protocol v1, one schema each. */
export const EventSchemas = {
  "session.created": event("session.created", {}),
  "turn.started": event("turn.started", {
    turnId: z.string(),
    cause: z.enum(["message", "responses"]),
    idempotencyKey: z.optional(z.string()),
  }),
  "message.started": event("message.started", {
    messageId: z.string(),
    role: MessageRole,
    idempotencyKey: z.optional(z.string()),
  }),
  "text.delta": streamed("text.delta", { messageId: z.string(), delta: z.string() }),
  "reasoning.delta": streamed("reasoning.delta", { messageId: z.string(), delta: z.string() }),
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
    reasonCode: z.optional(ReasonCode),
  }),
  "tool.result": event("tool.result", { toolCallId: z.string(), outcome: ToolOutcome, output: z.unknown() }),
  "turn.waiting": event("turn.waiting", { turnId: z.string(), requestIds: z.array(z.string()) }),
  "turn.completed": event("turn.completed", { turnId: z.string() }),
  "turn.failed": event("turn.failed", { turnId: z.string(), error: TurnError }),
  "turn.cancelled": event("turn.cancelled", { turnId: z.string() }),
} as const satisfies Record<(typeof EVENT_TYPES)[number], z.ZodMiniType>; // one schema per listed type, no more

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

/** Where a session is: no turn running, a turn running, or a turn parked on people. */
export const SessionStatus = z.enum(["idle", "running", "waiting"]);

/** Text the model or the person wrote. */
export const TextPart = z.object({ type: z.literal("text"), text: z.string() });

/** The model's visible reasoning. */
export const ReasoningPart = z.object({ type: z.literal("reasoning"), text: z.string() });

const toolBase = {
  type: z.literal("tool"),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  asked: z.optional(z.array(z.string())),
};

/**
 * A tool call, by state: `running` (called, or answered and executing), `awaiting-input`
 * (parked on `requestId`), or `done` (its one result is in). `asked`: the requests of the
 * call before `requestId`, oldest first (an approval, earlier questions of a tool that asks).
 */
export const ToolPart = z.discriminatedUnion("state", [
  z.object({ ...toolBase, state: z.literal("running"), requestId: z.optional(z.string()) }),
  z.object({ ...toolBase, state: z.literal("awaiting-input"), requestId: z.string() }),
  z.object({
    ...toolBase,
    state: z.literal("done"),
    requestId: z.optional(z.string()),
    outcome: ToolOutcome,
    output: z.unknown(),
  }),
]);

/** One part of a message. */
export const MessagePart = z.union([TextPart, ReasoningPart, ToolPart]);

/** A message of the transcript, as the person sees it. */
export const Message = z.object({
  id: z.string(),
  role: MessageRole,
  status: z.enum(["streaming", "complete"]),
  parts: z.array(MessagePart),
  idempotencyKey: z.optional(z.string()),
  at: z.optional(z.string()),
});

/** A settled request and how it was settled, so a transcript can show the answer after a reload. */
export const ResolvedRequest = z.object({
  request: InputRequest,
  resolution: z.object({
    action: ResolutionAction,
    value: z.optional(z.unknown()),
    reason: z.optional(z.string()),
    reasonCode: z.optional(ReasonCode),
  }),
});

/** `GET /sessions/:id`: the session folded from its event log up to `lastSeq`. */
export const SessionSnapshot = z.object({
  sessionId: z.string(),
  status: SessionStatus,
  messages: z.array(Message),
  pending: z.array(InputRequest),
  /** Settled requests, oldest first. */
  resolved: z._default(z.array(ResolvedRequest), []),
  lastSeq: z.int().check(z.nonnegative()),
  error: z.optional(TurnError),
  before: z.optional(z.string()),
});

/** The person's three ways to answer (MCP elicitation's outcomes). For an approval, accept approves and decline denies. */
export const ResponseAction = z.enum(["accept", "decline", "cancel"]);

/**
 * The person's answer to one `InputRequest`. `value` is required for `accept` of an input
 * request. Strict, unlike the rest of the protocol: an answer with a field the server does not
 * know (an edited input, say) must not be taken as the plain answer it would read.
 */
export const InputResponse = z.strictObject({
  requestId: z.string().check(z.minLength(1)),
  action: ResponseAction,
  value: z.optional(z.unknown()),
  reason: z.optional(z.string().check(z.maxLength(10_000))),
});

/** Body of `POST /sessions/:id/responses`. */
export const RespondBody = z.object({
  responses: z.array(InputResponse).check(z.minLength(1), z.maxLength(100)),
});

/** Body of `POST /sessions/:id/messages`. */
export const SendMessageBody = z.object({
  text: z.string().check(z.regex(/\S/), z.maxLength(100_000)),
});

/** Body of `POST /sessions`. */
export const CreateSessionBody = z.looseObject({});

/** Body of `POST /sessions/:id/cancel`: `{}`, or `{turnId}` to stop that turn only. */
export const CancelBody = z.looseObject({
  turnId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});

/** The JSON body of every error response: `{error: {code, message, details?}}`. */
export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
});
