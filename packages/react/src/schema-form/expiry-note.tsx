"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";

/** How long before a request expires the frame says so, once, to screen readers too. */
const soonMinutes = 2;
/** setTimeout fires at once for a longer delay (over 24.8 days): such a request is not "soon" while this page lives. */
const longestDelay = 2 ** 31 - 1;

const subscribeNothing = () => () => {};

/**
 * @internal By when an open request is to be answered: "Answer by 14:05", the time in a
 * `<time dateTime>`, and shortly before it runs out a polite live region says so once.
 * The time is local to the browser, so the server renders nothing and hydration adds it.
 */
export function ExpiryNote({ expiresAt }: { expiresAt: string }) {
  const texts = useWidgetTexts();
  const at = new Date(expiresAt).getTime();
  const inBrowser = useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );
  const [soon, setSoon] = useState(false);
  useEffect(() => {
    const delay = at - soonMinutes * 60_000 - Date.now();
    if (Number.isNaN(delay) || delay > longestDelay) return;
    const timer = setTimeout(() => setSoon(true), Math.max(0, delay));
    return () => clearTimeout(timer);
  }, [at]);
  if (!inBrowser || Number.isNaN(at)) return null;
  const time = texts.deadline(new Date(at));
  const sentence = texts.answerBy(time);
  const cut = sentence.indexOf(time);
  return (
    <p className="hitl-widget__expiry" data-soon={soon || undefined}>
      {cut < 0 ? (
        <time dateTime={expiresAt}>{sentence}</time>
      ) : (
        <>
          {sentence.slice(0, cut)}
          <time dateTime={expiresAt}>{time}</time>
          {sentence.slice(cut + time.length)}
        </>
      )}
      <span aria-live="polite">{soon ? ` ${texts.expiresSoon(soonMinutes)}` : ""}</span>
    </p>
  );
}
