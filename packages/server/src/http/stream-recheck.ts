/**
 * The signal an event stream ends on: the request's own (the client went away), or a check
 * made again every `everyMs` — is the caller still the one who opened the stream, and still
 * allowed to read it? — answering no or failing. A stream ended so closes cleanly; the
 * client's reconnect is a new request, answered as any other (`401` once signed out).
 * `stop` ends the checks; they end by themselves with the signal.
 */
export function recheckedSignal(
  opened: AbortSignal,
  everyMs: number,
  stillAllowed: () => Promise<boolean>,
): { signal: AbortSignal; stop: () => void } {
  if (!Number.isFinite(everyMs)) return { signal: opened, stop: () => {} };
  const refused = new AbortController();
  const signal = AbortSignal.any([opened, refused.signal]);
  const timer = setInterval(() => {
    stillAllowed().then(
      (allowed) => allowed || refused.abort(),
      () => refused.abort(),
    );
  }, everyMs);
  timer.unref?.();
  const stop = () => clearInterval(timer);
  signal.addEventListener("abort", stop);
  return { signal, stop };
}
