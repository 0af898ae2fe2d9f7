"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";

/** How long before a request expires the frame says so, once, to screen readers too. */
const soonMinutes = 2;
/** setTimeout fires at once for a longer delay (over 24.8 days): such a request is not "soon" while this page lives. */
const longestDelay = 2 ** 31 - 1;

/** Where the request is against its deadline: time left, little time left, or none (the server has not settled it yet). */
type Phase = "open" | "soon" | "due";

const subscribeNothing = () => () => {};

/**
 * @internal By when an open request is to be answered: "Answer by 14:05", the time in a
 * `<time dateTime>`. Shortly before it runs out a polite live region says so once, and
 * again when it has run out while the request is still open (the server settles it as
 * expired soon after, or when it is back). The time is local to the browser, so the
 * server renders nothing and hydration adds it.
 */
export function ExpiryNote({ id, expiresAt }: { id: string; expiresAt: string }) {
  const texts = useWidgetTexts();
  const at = new Date(expiresAt).getTime();
  const inBrowser = useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );
  const [phase, setPhase] = useState<Phase>("open");
  useEffect(() => {
    const due = at - Date.now();
    // A request that comes past its deadline says only that (not first that little time is left).
    const timers = [
      ...(due > 0 ? [{ phase: "soon" as const, delay: due - soonMinutes * 60_000 }] : []),
      { phase: "due" as const, delay: due },
    ]
      .filter(({ delay }) => !Number.isNaN(delay) && delay <= longestDelay)
      .map(({ phase, delay }) => setTimeout(() => setPhase(phase), Math.max(0, delay)));
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, [at]);
  if (!inBrowser || Number.isNaN(at)) return null;
  const time = texts.deadline(new Date(at));
  const sentence = texts.answerBy(time);
  const cut = sentence.indexOf(time);
  return (
    <p className="hitl-widget__expiry" id={id} data-state={phase}>
      {cut < 0 ? (
        <time dateTime={expiresAt}>{sentence}</time>
      ) : (
        <>
          {sentence.slice(0, cut)}
          <time dateTime={expiresAt}>{time}</time>
          {sentence.slice(cut + time.length)}
        </>
      )}
      <span aria-live="polite">
        {phase === "soon" ? ` ${texts.expiresSoon(soonMinutes)}` : phase === "due" ? ` ${texts.timeUp}` : ""}
      </span>
    </p>
  );
}
