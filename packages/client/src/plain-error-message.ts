/**
 * What a person reads for a failed command or answer. For a failure on the way — no answer
 * came back, a server restarting, too many tries, a server fault — plain words, since the
 * error's own `message` is written for developers (it names the URL, say). For a refusal
 * (`invalid_answer`, `already_resolved`, …) the server's own message, which says what to
 * change, except for a message refused while a reply runs (`turn_running`), whose message
 * speaks of turns. A page older than the server (`client_outdated`) is told to reload.
 * @example
 * <p role="alert">{plainErrorMessage(state.error)}</p>
 */
export function plainErrorMessage(error: { code?: string; message: string }): string {
  return (error.code === undefined ? undefined : plainWords[error.code]) ?? error.message;
}

const plainWords: Record<string, string> = {
  network: "Could not reach the server. Check your connection, then try again.",
  unavailable: "The server is restarting or busy right now. Try again in a moment.",
  rate_limited: "Too many tries in a short time. Wait a moment, then try again.",
  internal: "Something went wrong on the server. Try again; if it keeps happening, tell whoever runs this app.",
  bad_response: "The server's answer could not be read. Try again; if it keeps happening, tell whoever runs this app.",
  aborted: "Stopped before it was sent.",
  client_outdated: "This page is out of date. Reload it to go on.",
  turn_running: "The assistant is still replying. Wait for it to finish, or stop it, then send this again.",
};
