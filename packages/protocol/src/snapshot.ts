import * as z from "zod/mini";
import { MessageRole, ToolOutcome, TurnError } from "./events.js";
import { InputRequest, ResolutionAction } from "./requests.js";

/** Where a session is: no turn running, a turn running, or a turn parked on people. */
export const SessionStatus = z.enum(["idle", "running", "waiting"]);
/** @see SessionStatus */
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Text the model or the person wrote. */
export const TextPart = z.object({ type: z.literal("text"), text: z.string() });
/** @see TextPart */
export type TextPart = z.infer<typeof TextPart>;

/** The model's visible reasoning. */
export const ReasoningPart = z.object({ type: z.literal("reasoning"), text: z.string() });
/** @see ReasoningPart */
export type ReasoningPart = z.infer<typeof ReasoningPart>;

const toolBase = {
  type: z.literal("tool"),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
};

/**
 * A tool call, by state: `running` (called, or answered and executing), `awaiting-input`
 * (parked on `requestId`), or `done` (its one result is in).
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
/** @see ToolPart */
export type ToolPart = z.infer<typeof ToolPart>;

/** One part of a message. */
export const MessagePart = z.union([TextPart, ReasoningPart, ToolPart]);
/** @see MessagePart */
export type MessagePart = z.infer<typeof MessagePart>;

/** A message of the transcript, as the person sees it. */
export const Message = z.object({
  id: z.string(),
  role: MessageRole,
  status: z.enum(["streaming", "complete"]),
  parts: z.array(MessagePart),
});
/** @see Message */
export type Message = z.infer<typeof Message>;

/** A settled request and how it was settled, so a transcript can show the answer after a reload. */
export const ResolvedRequest = z.object({
  request: InputRequest,
  resolution: z.object({ action: ResolutionAction, value: z.optional(z.unknown()), reason: z.optional(z.string()) }),
});
/** @see ResolvedRequest */
export type ResolvedRequest = z.infer<typeof ResolvedRequest>;

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
});
/** @see SessionSnapshot */
export type SessionSnapshot = z.infer<typeof SessionSnapshot>;
