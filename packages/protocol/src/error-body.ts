/** The JSON body of every error response: `{error: {code, message, details?}}`. */
export interface ErrorBody {
  /** The error: its wire code (`not_found`, `invalid_answer`, …), a human-readable message, and details such as validation issues. */
  error: { code: string; message: string; details?: unknown };
}
