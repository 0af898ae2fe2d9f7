import * as z from "zod/mini";

// The bodies of the commands a browser POSTs. Only the server parses them, so they live
// apart from the schemas a browser reads events with, and a browser bundle leaves their
// checks (trim, length limits) out.

/** The person's three ways to answer (MCP elicitation's outcomes). For an approval, accept approves and decline denies. */
export const ResponseAction = z.enum(["accept", "decline", "cancel"]);
/** @see ResponseAction */
export type ResponseAction = z.infer<typeof ResponseAction>;

/** The person's answer to one `InputRequest`. `value` is required for `accept` of an input request. */
export const InputResponse = z.object({
  requestId: z.string().check(z.minLength(1)),
  action: ResponseAction,
  value: z.optional(z.unknown()),
  reason: z.optional(z.string().check(z.maxLength(10_000))),
});
/** @see InputResponse */
export type InputResponse = z.infer<typeof InputResponse>;

/** Body of `POST /sessions/:id/responses`. */
export const RespondBody = z.object({
  responses: z.array(InputResponse).check(z.minLength(1), z.maxLength(100)),
});
/** @see RespondBody */
export type RespondBody = z.infer<typeof RespondBody>;

/** Body of `POST /sessions/:id/messages`. */
export const SendMessageBody = z.object({
  text: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)),
});
/** @see SendMessageBody */
export type SendMessageBody = z.infer<typeof SendMessageBody>;

/** Body of `POST /sessions`. */
export const CreateSessionBody = z.looseObject({});
/** @see CreateSessionBody */
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** Body of `POST /sessions/:id/cancel`: `{}`. It is JSON only so that no cross-site form can send it. */
export const CancelBody = z.looseObject({});
/** @see CancelBody */
export type CancelBody = z.infer<typeof CancelBody>;
