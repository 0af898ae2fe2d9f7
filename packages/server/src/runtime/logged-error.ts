import { cutText } from "./cut-text.js";

/**
 * What the runtime logs of an error. A provider's error carries the request it sent (the
 * system prompt and the whole transcript), the response's headers and body, and a URL that
 * may hold a key (`?key=`): none of that may reach a log. A line carries a summary of the
 * error and its causes, so it reads on its own (pino drops extra arguments); the error
 * passed beside it is a copy that keeps only what is safe, with the stack.
 */

/** How many causes deep a summary and a redacted copy go (a cycle stops them sooner). */
const MAX_CAUSES = 5;

/** The longest message a summary quotes (a provider may answer with a page of text). */
const MAX_MESSAGE = 500;

/** What is kept of an error: nothing that may carry a request, a response or a credential. */
interface SafeFields {
  name: string | undefined;
  message: string;
  code?: string | number;
  statusCode?: number;
  isRetryable?: boolean;
  url?: string;
}

/**
 * The line a failure is logged with, and the redacted error to pass beside it:
 * `logger.warn(...failureLine("hitl-kit: session ses_1: the turn failed", error))`.
 */
export function failureLine(what: string, error: unknown): [string, Error] {
  return [`${what}: ${errorSummary(error)}`, redactedError(error)];
}

/**
 * Where a line's event happened, as far as it is known:
 * `session ses_… turn turn_… call call_… (tool_name)`.
 */
export function logScope(sessionId: string, turnId?: string, call?: { toolCallId: string; toolName: string }): string {
  const turn = turnId ? ` turn ${turnId}` : "";
  return `session ${sessionId}${turn}${call ? ` call ${call.toolCallId} (${call.toolName})` : ""}`;
}

/**
 * One line that says what went wrong: each error of the cause chain as its name, code,
 * status and URL (without its query), and message —
 * `AI_APICallError (status 401, https://api.example/v1/messages): Invalid key; cause: …`.
 */
export function errorSummary(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && parts.length <= MAX_CAUSES; current = causeOf(current)) {
    if (seen.has(current)) break;
    seen.add(current);
    parts.push(summaryOf(safeFields(current)));
  }
  return parts.join("; cause: ");
}

/**
 * A copy of `error` to log: its name, message and stack, its code, status, `isRetryable`
 * and URL without the query, and its causes copied so; never a request body, headers or a
 * response body. Not the original, which a logger would print whole.
 */
export function redactedError(error: unknown, depth = 0, seen = new Set<unknown>()): Error {
  seen.add(error);
  const fields = safeFields(error);
  const cause = causeOf(error);
  const copy =
    cause !== undefined && depth < MAX_CAUSES && !seen.has(cause)
      ? new Error(fields.message, { cause: redactedError(cause, depth + 1, seen) })
      : new Error(fields.message);
  // Not an own enumerable field: a console prints it in the stack's first line only.
  Object.defineProperty(copy, "name", { value: fields.name ?? "Error", configurable: true, writable: true });
  if (error instanceof Error && error.stack) copy.stack = error.stack;
  const { code, statusCode, isRetryable, url } = fields;
  Object.assign(copy, {
    ...(code === undefined ? {} : { code }),
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(isRetryable === undefined ? {} : { isRetryable }),
    ...(url === undefined ? {} : { url }),
  });
  return copy;
}

function summaryOf({ name, message, code, statusCode, url }: SafeFields): string {
  const details = [
    ...(code === undefined ? [] : [`code ${code}`]),
    ...(statusCode === undefined ? [] : [`status ${statusCode}`]),
    ...(url === undefined ? [] : [url]),
  ];
  const head = `${name ?? ""}${details.length > 0 ? ` (${details.join(", ")})` : ""}`;
  const text = oneLine(message);
  return head ? `${head}: ${text}` : text;
}

function safeFields(error: unknown): SafeFields {
  if (typeof error !== "object" || error === null) return { name: undefined, message: String(error) };
  const { name, message, code, statusCode, isRetryable, url } = error as Record<string, unknown>;
  return {
    name: typeof name === "string" ? name : error.constructor?.name,
    message: typeof message === "string" ? message : "(no message)",
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    ...(typeof statusCode === "number" ? { statusCode } : {}),
    ...(typeof isRetryable === "boolean" ? { isRetryable } : {}),
    ...(typeof url === "string" ? { url: withoutQuery(url) } : {}),
  };
}

function causeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined;
}

/** The URL without its query, fragment or credentials (Gemini takes its key as `?key=`). */
function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.search = "";
    parsed.hash = "";
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return url.replace(/[?#].*$/s, "");
  }
}

/** A message on one line, cut at {@link MAX_MESSAGE} characters. */
function oneLine(message: string): string {
  const line = message.replace(/\s*\n\s*/g, " ").trim();
  return line.length > MAX_MESSAGE ? `${cutText(line, MAX_MESSAGE)}…` : line;
}
