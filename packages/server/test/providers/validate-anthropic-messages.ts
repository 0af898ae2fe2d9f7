type Message = { role?: unknown; content?: unknown };
type Block = { type?: unknown; id?: unknown; tool_use_id?: unknown };

/**
 * Checks a Messages API request body the way the Anthropic API does before it replies, and
 * returns the message of the 400 it would answer, or null when it would accept the body.
 *
 * It covers the required fields, role alternation, empty messages, `tool_use` ids used
 * twice anywhere in the request, and the pairing of tool calls and results: every `tool_use` of an assistant message needs exactly one `tool_result`
 * among the leading blocks of the next (user) message, and every `tool_result` must answer a
 * `tool_use` of the message right before it.
 *
 * @example
 * validateAnthropicMessages({ model: "claude-x", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] }); // null
 */
export function validateAnthropicMessages(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return "body: Input should be a valid dictionary";
  const request = body as Record<string, unknown>;
  if (request.model === undefined) return "model: Field required";
  if (request.max_tokens === undefined) return "max_tokens: Field required";
  if (request.messages === undefined) return "messages: Field required";
  if (!Array.isArray(request.messages)) return "messages: Input should be a valid list";
  const messages = request.messages as Message[];
  if (messages.length === 0) return "messages: at least one message is required";

  for (const [i, message] of messages.entries()) {
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
    if (i > 0 && messages[i - 1]?.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const isFinalAssistant = i === messages.length - 1 && message.role === "assistant";
    const empty = message.content === "" || (Array.isArray(message.content) && message.content.length === 0);
    if (empty && !isFinalAssistant) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
  }

  const toolUseIds = new Set<string>();
  for (const [i, message] of messages.entries()) {
    for (const [j, block] of blocksOf(message).entries()) {
      if (block.type !== "tool_use") continue;
      if (toolUseIds.has(String(block.id))) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
      toolUseIds.add(String(block.id));
    }
  }

  for (const [i, message] of messages.entries()) {
    const error = message.role === "assistant" ? checkToolUses(messages, i) : checkToolResults(messages, i);
    if (error) return error;
  }
  return null;
}

/** Every tool_use of messages[i] must be answered among the leading tool_result blocks of the next message. */
function checkToolUses(messages: Message[], i: number): string | null {
  const toolUseIds = blocksOf(messages[i]).flatMap((block) => (block.type === "tool_use" ? [String(block.id)] : []));
  if (toolUseIds.length === 0) return null;
  const next = messages[i + 1];
  const answered = new Set<string>();
  if (next?.role === "user") {
    for (const block of blocksOf(next)) {
      // Results count only before any other block: text first, then results, is refused.
      if (block.type !== "tool_result") break;
      answered.add(String(block.tool_use_id));
    }
  }
  const missing = toolUseIds.filter((id) => !answered.has(id));
  if (missing.length === 0) return null;
  return (
    `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. ` +
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
  );
}

/** Every tool_result of messages[i] must answer, once, a tool_use of the message before it. */
function checkToolResults(messages: Message[], i: number): string | null {
  const previous = messages[i - 1];
  const toolUseIds = new Set(
    previous?.role === "assistant"
      ? blocksOf(previous).flatMap((block) => (block.type === "tool_use" ? [String(block.id)] : []))
      : [],
  );
  const seen = new Set<string>();
  for (const [j, block] of blocksOf(messages[i]).entries()) {
    if (block.type !== "tool_result") continue;
    const id = String(block.tool_use_id);
    if (!toolUseIds.has(id)) {
      return (
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
      );
    }
    if (seen.has(id)) {
      return `messages.${i}.content.${j}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`;
    }
    seen.add(id);
  }
  return null;
}

function blocksOf(message: Message | undefined): Block[] {
  return Array.isArray(message?.content) ? (message.content as Block[]) : [];
}
