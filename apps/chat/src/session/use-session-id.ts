import { plainErrorMessage } from "@hitl-kit/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { agentApi } from "../shared/endpoint.js";

const storageKey = "hitl-kit-chat:session";
const hashPrefix = "#session=";

/** What the URL hash says: no session, a session id, or something that cannot be one. */
export type HashSession =
  | { kind: "none" }
  | { kind: "session"; sessionId: string }
  | { kind: "malformed"; raw: string };

/** Reads `#session=<id>`; an id with bad percent-encoding or characters no session id has is `malformed`. */
export function sessionFromHash(hash: string): HashSession {
  if (!hash.startsWith(hashPrefix)) return { kind: "none" };
  const raw = hash.slice(hashPrefix.length);
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return { kind: "malformed", raw };
  }
  if (id === "") return { kind: "none" };
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? { kind: "session", sessionId: id } : { kind: "malformed", raw };
}

/** The session id in the URL hash (`#session=<id>`), if it holds a well-formed one. */
export function sessionIdFromHash(hash: string): string | undefined {
  const found = sessionFromHash(hash);
  return found.kind === "session" ? found.sessionId : undefined;
}

function malformedNotice(raw: string): string {
  const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  return `The link's chat id (“${shown}”) is not valid, so a new chat was started.`;
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
  /** Something the person should know about the session chosen for them (a bad link replaced by a new chat). */
  notice: string | undefined;
  /** Creates a session and switches to it. */
  startNew: () => Promise<void>;
}

async function createSession(): Promise<string> {
  return (await agentApi.createSession()).sessionId;
}

let creating: Promise<string> | undefined;

/**
 * The current session id, kept in the URL hash (so a link or a reload returns to it) and
 * in localStorage (so opening the app again does too). Without either, a session is
 * created. Switching sessions is a hash change: a link to `#session=<id>` is enough.
 */
export function useSessionId(): SessionSelection {
  const [initial] = useState(() => sessionFromHash(location.hash));
  const [sessionId, setSessionId] = useState(() => {
    if (initial.kind === "session") return initial.sessionId;
    // A bad link starts a new chat rather than reopening the last one, which it did not ask for.
    if (initial.kind === "malformed") return undefined;
    return localStorage.getItem(storageKey) ?? undefined;
  });
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState(() => (initial.kind === "malformed" ? malformedNotice(initial.raw) : undefined));

  const created = useRef<string>(undefined);

  const startNew = useCallback(async () => {
    setError(undefined);
    try {
      // One creation at a time, so StrictMode's double effects and double clicks make one session.
      creating ??= createSession().finally(() => {
        creating = undefined;
      });
      created.current = await creating;
      location.hash = hashForSession(created.current);
    } catch (cause) {
      setError(`Could not start a chat: ${plainErrorMessage(cause as Error)}`);
    }
  }, []);

  useEffect(() => {
    const onHashChange = () => {
      const found = sessionFromHash(location.hash);
      if (found.kind === "session") {
        // The notice explains the chat started in place of a bad link; going elsewhere ends it.
        if (found.sessionId !== created.current) setNotice(undefined);
        setSessionId(found.sessionId);
      } else if (found.kind === "malformed") {
        setNotice(malformedNotice(found.raw));
        setSessionId(undefined);
      }
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

  return { sessionId, error, notice, startNew };
}
