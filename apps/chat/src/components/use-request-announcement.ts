import type { RequestState } from "@hitl-kit/client";
import { useEffect, useRef, useState } from "react";

/** What a request asks, in a few words: its prompt, or its tool's name as a sentence. */
function question(state: RequestState): string {
  const { prompt, toolName } = state.request;
  if (prompt) return prompt;
  const words = toolName.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The words that announce new requests, for a `role="status"` region that is always
 * there: "Waiting for you: " and what each new request asks, once per request (a widget
 * is not read in full by the log around it; its frame keeps it out). Empty once no
 * request is open, so the same question asked again is announced again.
 * @param pending the open requests, as `agent.pending`.
 */
export function useRequestAnnouncement(pending: readonly RequestState[]): string {
  const announced = useRef(new Set<string>());
  const [text, setText] = useState("");
  useEffect(() => {
    const fresh = pending.filter((state) => !announced.current.has(state.request.requestId));
    for (const state of fresh) announced.current.add(state.request.requestId);
    if (fresh.length > 0) setText(`Waiting for you: ${fresh.map(question).join("; ")}`);
    else if (pending.length === 0) setText("");
  }, [pending]);
  return text;
}
