import { useCallback, useState } from "react";

/**
 * The text in a chat's box, kept in `sessionStorage` per session, so a reload (or a visit
 * to another chat and back) finds it as it was, such as a message brought back to edit.
 * Without a session, or a storage that refuses, it lives in memory only.
 * @example
 * const [draft, setDraft] = useKeptDraft(agent.sessionId);
 */
export function useKeptDraft(sessionId: string | undefined): [string, (text: string) => void] {
  const item = sessionId === undefined ? undefined : `hitl-chat:draft:${sessionId}`;
  const [draft, setDraft] = useState(() => (item === undefined ? "" : read(item)));
  const keep = useCallback(
    (text: string) => {
      setDraft(text);
      if (item === undefined) return;
      try {
        if (text === "") sessionStorage.removeItem(item);
        else sessionStorage.setItem(item, text);
      } catch {
        // Blocked or full: the draft stays in memory.
      }
    },
    [item],
  );
  return [draft, keep];
}

function read(item: string): string {
  try {
    return sessionStorage.getItem(item) ?? "";
  } catch {
    return "";
  }
}
