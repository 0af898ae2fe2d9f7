import type { InputRequest } from "@hitl-kit/protocol";
import { useEffect, useRef, useState } from "react";

/** What a request asks, in a few words: its prompt, or its tool's name as a sentence. */
function question({ prompt, toolName }: InputRequest): string {
  if (prompt) return prompt;
  const words = toolName.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The words that announce new requests, for a `role="status"` region that is always
 * there: "Waiting for you: " and what each new request asks, once per request (a widget
 * is not read in full by the log around it; its frame keeps it out). Empty once no
 * request is open, so the same question asked again is announced again.
 * @param open the open requests: `agent.pending`'s, or a `useChat` app's open request parts.
 */
export function useRequestAnnouncement(open: readonly InputRequest[]): string {
  const announced = useRef(new Set<string>());
  const [text, setText] = useState("");
  useEffect(() => {
    const fresh = open.filter((request) => !announced.current.has(request.requestId));
    for (const request of fresh) announced.current.add(request.requestId);
    if (fresh.length > 0) setText(`Waiting for you: ${fresh.map(question).join("; ")}`);
    else if (open.length === 0) setText("");
  }, [open]);
  return text;
}
