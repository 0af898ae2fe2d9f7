import type { StepOutput } from "./model-step.js";

/** A tool call the runtime gave a new id, because the model's was empty or already used. */
export interface RenamedToolCall {
  toolName: string;
  /** The id the model wrote. */
  modelId: string;
  /** The id the call has everywhere from now on: events, store, and the transcript sent back. */
  id: string;
}

/**
 * Gives each tool call of a step an id that no other call of the session has. A model may
 * repeat an id (two calls in one reply, or a call in a later step that reuses an old id)
 * or leave it empty; keyed by id, one of those calls would lose its result. The first call
 * keeps the model's id, a repeat gets `newId()`, and the assistant message is rewritten to
 * match, so the provider sees each call once, with exactly one result after it.
 */
export function uniqueToolCallIds(
  output: StepOutput,
  taken: ReadonlySet<string>,
  newId: () => string,
): { output: StepOutput; renamed: RenamedToolCall[] } {
  // The step's own ids beside the session's: a step costs its calls, not the session's history.
  const used = new Set<string>();
  const renamed: RenamedToolCall[] = [];
  const toolCalls = output.toolCalls.map((call) => {
    if (call.toolCallId !== "" && !taken.has(call.toolCallId) && !used.has(call.toolCallId)) {
      used.add(call.toolCallId);
      return call;
    }
    let id = newId();
    while (taken.has(id) || used.has(id)) id = newId();
    used.add(id);
    renamed.push({ toolName: call.toolName, modelId: call.toolCallId, id });
    return { ...call, toolCallId: id };
  });
  if (renamed.length === 0) return { output, renamed };
  // The message holds the same calls in the same order (model-step pushes both together).
  let index = 0;
  const content = output.message.content.map((part) =>
    part.type === "tool-call" ? { ...part, toolCallId: toolCalls[index++]!.toolCallId } : part,
  );
  return { output: { ...output, toolCalls, message: { ...output.message, content } }, renamed };
}
