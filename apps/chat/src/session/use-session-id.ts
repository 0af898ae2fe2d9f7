import { useCallback, useEffect, useState } from "react";
import { agentEndpoint } from "../shared/endpoint.js";

const storageKey = "hitl-kit-chat:session";
const hashPrefix = "#session=";

/** The session id in the URL hash (`#session=<id>`), if any. */
export function sessionIdFromHash(hash: string): string | undefined {
  if (!hash.startsWith(hashPrefix)) return undefined;
  const id = decodeURIComponent(hash.slice(hashPrefix.length));
  return id || undefined;
}

/** The hash that points at a session. */
export function hashForSession(sessionId: string): string {
  return `${hashPrefix}${encodeURIComponent(sessionId)}`;
}

/** What {@link useSessionId} answers. */
export interface SessionSelection {
  /** The current session; `undefined` while the first one is created. */
  sessionId: string | undefined;
  /** Why a new session could not be created. */
  error: string | undefined;
  /** Creates a session and switches to it. */
  startNew: () => Promise<void>;
}

async function createSession(): Promise<string> {
  const response = await fetch(`${agentEndpoint.url}/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  const body = (await response.json().catch(() => ({}))) as { sessionId?: string; error?: { message?: string } };
  if (!response.ok || !body.sessionId)
    throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
  return body.sessionId;
}

let creating: Promise<string> | undefined;

/**
 * The current session id, kept in the URL hash (so a link or a reload returns to it) and
 * in localStorage (so opening the app again does too). Without either, a session is
 * created. Switching sessions is a hash change: a link to `#session=<id>` is enough.
 */
export function useSessionId(): SessionSelection {
  const [sessionId, setSessionId] = useState(
    () => sessionIdFromHash(location.hash) ?? localStorage.getItem(storageKey) ?? undefined,
  );
  const [error, setError] = useState<string>();

  const startNew = useCallback(async () => {
    setError(undefined);
    try {
      // One creation at a time, so StrictMode's double effects and double clicks make one session.
      creating ??= createSession().finally(() => {
        creating = undefined;
      });
      location.hash = hashForSession(await creating);
    } catch (cause) {
      setError(`Could not start a chat: ${(cause as Error).message}`);
    }
  }, []);

  useEffect(() => {
    const onHashChange = () => {
      const id = sessionIdFromHash(location.hash);
      if (id) setSessionId(id);
    };
    addEventListener("hashchange", onHashChange);
    return () => removeEventListener("hashchange", onHashChange);
  }, []);

  useEffect(() => {
    if (!sessionId) {
      void startNew();
      return;
    }
    localStorage.setItem(storageKey, sessionId);
    if (sessionIdFromHash(location.hash) !== sessionId) history.replaceState(null, "", hashForSession(sessionId));
  }, [sessionId, startNew]);

  return { sessionId, error, startNew };
}
