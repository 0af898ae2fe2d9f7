type Message = { role?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/** The parts of an OpenAI `invalid_request_error` body: `{error: {message, type, param, code}}`. */
export type OpenAIRequestError = { message: string; param: string | null; code: string | null };

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * Checks a Chat Completions request body the way the OpenAI API does before it replies, and
 * returns the error it would answer with status 400, or null when it would accept the body.
 *
 * It covers the required fields, roles, and the pairing of tool calls and results: an
 * assistant message with `tool_calls` must be followed by one `tool` message per
 * `tool_call_id`, a `tool` message must answer an unanswered call of that assistant message,
 * and a second `tool` message for one `tool_call_id` is refused as a duplicate value.
 */
export function checkOpenAIRequest(body: unknown): OpenAIRequestError | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { message: "We could not parse the JSON body of your request.", param: null, code: null };
  }
  const request = body as Record<string, unknown>;
  if (request.model === undefined) return { message: "you must provide a model parameter", param: null, code: null };
  if (request.messages === undefined) {
    return {
      message: "Missing required parameter: 'messages'.",
      param: "messages",
      code: "missing_required_parameter",
    };
  }
  if (!Array.isArray(request.messages)) {
    return { message: "Invalid type for 'messages': expected an array.", param: "messages", code: "invalid_type" };
  }
  const messages = request.messages as Message[];
  if (messages.length === 0) {
    return {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: "messages",
      code: "empty_array",
    };
  }
  for (const [i, message] of messages.entries()) {
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      return {
        message: `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        param: `messages[${i}].role`,
        code: "invalid_value",
      };
    }
    if (message.role === "tool" && typeof message.tool_call_id !== "string") {
      return {
        message: "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        param: `messages.[${i}].tool_call_id`,
        code: null,
      };
    }
  }

  let i = 0;
  while (i < messages.length) {
    const message = messages[i] as Message;
    if (message.role === "tool") return unexpectedToolMessage(i);
    const callIds = message.role === "assistant" ? toolCallIds(message) : [];
    i += 1;
    if (callIds.length === 0) continue;
    const unanswered = new Set(callIds);
    const answeredAt = new Map<string, number>();
    for (; i < messages.length && messages[i]?.role === "tool"; i += 1) {
      const id = String(messages[i]?.tool_call_id);
      const earlier = answeredAt.get(id);
      if (earlier !== undefined) return duplicateToolMessage(id, earlier, i);
      if (!unanswered.delete(id)) return unexpectedToolMessage(i);
      answeredAt.set(id, i);
    }
    if (unanswered.size > 0) {
      return {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          `The following tool_call_ids did not have response messages: ${[...unanswered].join(", ")}`,
        param: i < messages.length ? `messages.[${i}].role` : "messages",
        code: null,
      };
    }
  }
  return null;
}

/**
 * The message of the 400 the OpenAI API would answer for this Chat Completions body, or null.
 * @see checkOpenAIRequest for the error's `param` and `code` too.
 */
export function validateOpenAIMessages(body: unknown): string | null {
  return checkOpenAIRequest(body)?.message ?? null;
}

function toolCallIds(message: Message): string[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id?: unknown }) => String(call.id)) : [];
}

function duplicateToolMessage(id: string, first: number, second: number): OpenAIRequestError {
  return {
    message: `Invalid parameter: Duplicate value for 'tool_call_id' of '${id}', in messages[${first}] and messages[${second}].`,
    param: `messages.[${second}].tool_call_id`,
    code: null,
  };
}

function unexpectedToolMessage(i: number): OpenAIRequestError {
  return {
    // "preceeding" is the API's own spelling.
    message:
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    param: `messages.[${i}].role`,
    code: null,
  };
}
