import { z } from "zod";

/** What a request asks of the person: to approve a server tool call, or to provide an answer. */
export const RequestKind = z.enum(["approval", "input"]);
/** @see RequestKind */
export type RequestKind = z.infer<typeof RequestKind>;

/**
 * A parked tool call waiting for a person: one request per tool call. `answerSchema` is
 * the JSON Schema the answer's `value` must satisfy; the server checks it again.
 */
export const InputRequest = z.object({
  requestId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  kind: RequestKind,
  prompt: z.string().optional(),
  input: z.unknown(),
  answerSchema: z.record(z.string(), z.unknown()),
  expiresAt: z.string().optional(),
});
/** @see InputRequest */
export type InputRequest = z.infer<typeof InputRequest>;

/** The person's three ways to answer (MCP elicitation's outcomes). For an approval, accept approves and decline denies. */
export const ResponseAction = z.enum(["accept", "decline", "cancel"]);
/** @see ResponseAction */
export type ResponseAction = z.infer<typeof ResponseAction>;

/** How a parked request was settled: the person's action, or `expire` when its time ran out. */
export const ResolutionAction = z.enum(["accept", "decline", "cancel", "expire"]);
/** @see ResolutionAction */
export type ResolutionAction = z.infer<typeof ResolutionAction>;

/** The person's answer to one {@link InputRequest}. `value` is required for `accept` of an input request. */
export const InputResponse = z.object({
  requestId: z.string().min(1),
  action: ResponseAction,
  value: z.unknown().optional(),
  reason: z.string().max(10_000).optional(),
});
/** @see InputResponse */
export type InputResponse = z.infer<typeof InputResponse>;

/** Body of `POST /sessions/:id/responses`. */
export const RespondBody = z.object({ responses: z.array(InputResponse).min(1).max(100) });
/** @see RespondBody */
export type RespondBody = z.infer<typeof RespondBody>;

/** Body of `POST /sessions/:id/messages`. */
export const SendMessageBody = z.object({ text: z.string().trim().min(1).max(100_000) });
/** @see SendMessageBody */
export type SendMessageBody = z.infer<typeof SendMessageBody>;

/** Body of `POST /sessions`. */
export const CreateSessionBody = z.object({}).loose();
/** @see CreateSessionBody */
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;
