type Message = { role?: unknown; tool_calls?: unknown; tool_call_id?: unknown; prefix?: unknown };

/** Mistral's error body fields: `{object: "error", message, type, param, code}`. */
export type MistralRequestError = { message: string; type: string; code: string | null };

const TOOL_CALL_ID = /^[a-zA-Z0-9]{9}$/;

const order = (message: string): MistralRequestError => ({
  message,
  type: "invalid_request_message_order",
  code: "3230",
});

/**
 * Checks a Mistral chat completions body the way La Plateforme does before it replies, and
 * returns its 400, or null.
 *
 * It covers the tool call id format (9 characters of a-z, A-Z, 0-9, in calls and results),
 * the order of roles (a `tool` message only after an assistant's calls or another result, no
 * `user` message right after a `tool` one), the count of results for each assistant message
 * with `tool_calls`, and the last role (user or tool, or an assistant with `prefix: true`).
 */
export function checkMistralRequest(body: unknown): MistralRequestError | null {
  const request = body as { model?: unknown; messages?: unknown };
  if (request.model === undefined)
    return { message: "model: Field required", type: "invalid_request_error", code: null };
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    return { message: "messages: Field required", type: "invalid_request_error", code: null };
  }
  const messages = request.messages as Message[];
  for (const message of messages) {
    const ids = [
      ...(Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id?: unknown }) => call.id) : []),
      ...(message.role === "tool" ? [message.tool_call_id] : []),
    ];
    for (const id of ids) {
      if (typeof id !== "string" || !TOOL_CALL_ID.test(id)) {
        return {
          message: `Tool call id was ${String(id)} but must be a-z, A-Z, 0-9, with a length of 9.`,
          type: "invalid_function_call",
          code: "3280",
        };
      }
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const previous = messages[i - 1];
    if (message.role === "tool" && previous?.role !== "tool" && !hasCalls(previous)) {
      return order(`Unexpected role 'tool' after role '${String(previous?.role)}'`);
    }
    if (message.role === "user" && previous?.role === "tool") return order("Unexpected role 'user' after role 'tool'");
    if (hasCalls(message)) {
      const calls = new Set((message.tool_calls as { id: string }[]).map((call) => call.id));
      let j = i + 1;
      const answered = new Set<string>();
      for (; j < messages.length && messages[j]?.role === "tool"; j++) answered.add(String(messages[j]?.tool_call_id));
      const same = answered.size === calls.size && [...calls].every((id) => answered.has(id));
      if (j - (i + 1) !== calls.size || !same) {
        return {
          message: "Not the same number of function calls and responses",
          type: "invalid_request_error",
          code: null,
        };
      }
    }
  }
  const last = messages.at(-1)!;
  if (last.role !== "user" && last.role !== "tool" && !(last.role === "assistant" && last.prefix === true)) {
    return order(
      `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${String(last.role)}`,
    );
  }
  return null;
}

function hasCalls(message: Message | undefined): boolean {
  return message?.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}
