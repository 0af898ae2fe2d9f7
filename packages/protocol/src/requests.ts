import * as z from "zod/mini";

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
  prompt: z.optional(z.string()),
  input: z.unknown(),
  answerSchema: z.looseObject({}),
  expiresAt: z.optional(z.string()),
});
/** @see InputRequest */
export type InputRequest = z.infer<typeof InputRequest>;

/** How a parked request was settled: the person's action, or `expire` when its time ran out. */
export const ResolutionAction = z.enum(["accept", "decline", "cancel", "expire"]);
/** @see ResolutionAction */
export type ResolutionAction = z.infer<typeof ResolutionAction>;
