import * as z from "zod/mini";

/** The JSON body of every error response: `{error: {code, message, details?}}`. */
export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
});
/** @see ErrorBody */
export type ErrorBody = z.infer<typeof ErrorBody>;
