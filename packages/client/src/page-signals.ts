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
  target.addEventListener("online", online);
  target.addEventListener("offline", offline);
  target.addEventListener("pageshow", restored);
  page?.addEventListener("visibilitychange", visibility);
  if (page?.visibilityState === "hidden") signals.hidden();
  return () => {
    target.removeEventListener("online", online);
    target.removeEventListener("offline", offline);
    target.removeEventListener("pageshow", restored);
    page?.removeEventListener("visibilitychange", visibility);
  };
}
