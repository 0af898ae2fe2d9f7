/** The JSON body of every error response: `{error: {code, message, details?}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
