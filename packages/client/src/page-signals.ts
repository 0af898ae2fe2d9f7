/** What the page says that matters to a connection: the network came or went, the page is hidden or shown again. */
export interface PageSignals {
  /** The browser says the network is back (`online`). */
  online(): void;
  /** The browser says the network is gone (`offline`). */
  offline(): void;
  /** The page is shown again: visible after being hidden, or restored from the back/forward cache. */
  shown(): void;
  /** The page is hidden (another tab, a minimized window, a locked screen), or was already when watching began. */
  hidden(): void;
}

/**
 * Listens for `online`, `offline`, `pageshow` from the back/forward cache and
 * `visibilitychange` (to visible: `shown`; to hidden: `hidden`); returns the function that
 * stops listening. A page hidden already (a tab opened in the background) is reported
 * `hidden` at once. Outside a browser (Node, a worker without `window`) there is nothing
 * to listen to.
 */
export function watchPage(signals: PageSignals): () => void {
  if (typeof window === "undefined" || typeof window.addEventListener !== "function") return () => {};
  const online = () => signals.online();
  const offline = () => signals.offline();
  const restored = (event: Event) => {
    if ((event as PageTransitionEvent).persisted) signals.shown();
  };
  const target = window;
  const page = typeof document === "undefined" ? undefined : document;
  const visibility = () => {
    if (page?.visibilityState === "visible") signals.shown();
    else if (page?.visibilityState === "hidden") signals.hidden();
  };
  const listeners = [
    [target, "online", online],
    [target, "offline", offline],
    [target, "pageshow", restored],
    [page, "visibilitychange", visibility],
  ] as const;
  for (const [on, type, listener] of listeners) on?.addEventListener(type, listener);
  if (page?.visibilityState === "hidden") signals.hidden();
  return () => {
    for (const [on, type, listener] of listeners) on?.removeEventListener(type, listener);
  };
}

/**
 * While the browser says it has no network (`navigator.onLine` is `false`), a promise that
 * resolves when it says the network is back (`online`) or `signal` aborts; otherwise
 * `undefined`. A request that failed for want of a network waits for it this way instead of
 * spending its resends, as a chat app keeps a message until the phone is back online.
 */
export function whileOffline(signal: AbortSignal): Promise<void> | undefined {
  if (typeof navigator === "undefined" || navigator.onLine !== false) return undefined;
  if (typeof window === "undefined" || typeof window.addEventListener !== "function") return undefined;
  const target = window;
  return new Promise((resolve) => {
    const done = () => {
      target.removeEventListener("online", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    target.addEventListener("online", done);
    signal.addEventListener("abort", done, { once: true });
    if (signal.aborted) done();
  });
}
