import { useCallback, useEffect, useRef, useState } from "react";

/**
 * Where the person is in the conversation: `following` the end (kept there as it grows),
 * `reading` earlier messages (they scrolled up), or `behind`: reading, and something new
 * arrived below since.
 */
export type ScrollPlace = "following" | "reading" | "behind";

/** How close to the end counts as at the end. */
const AT_THE_END_PX = 48;
/** Room kept above the start of a request, and around the control the person uses. */
const MARGIN_PX = 16;
/** A widget whose request still waits for an answer (the kit's widgets mirror their status in `data-state`). */
const OPEN_WIDGET =
  '[data-hitl-widget]:not([data-state="resolved"]):not([data-state="declined"]):not([data-state="cancelled"]):not([data-state="expired"])';

/** The element's top and bottom in the scroller's content, in px from its start. */
function extent(scroller: HTMLElement, element: Element): { top: number; bottom: number } {
  const box = element.getBoundingClientRect();
  const top = box.top - scroller.getBoundingClientRect().top + scroller.scrollTop;
  return { top, bottom: top + box.height };
}

/** The control the person is using in an open widget (a text field they type in, say), if any. */
function focusedControl(scroller: HTMLElement): Element | undefined {
  const active = scroller.ownerDocument.activeElement;
  if (!active || active === scroller || !scroller.contains(active)) return undefined;
  return active.closest(OPEN_WIDGET) ? active : undefined;
}

/**
 * The scroll position nearest `wanted` that keeps the focused control in view: far enough
 * down to show its bottom (an on-screen keyboard shrank the view under it), never so far
 * that its top leaves. A control that was not in view (above it, or below `shownTill`, the
 * view's end before it shrank) is left where it is: the person scrolled away from it.
 */
function keepInView(scroller: HTMLElement, wanted: number, shownTill: number): number {
  const focused = focusedControl(scroller);
  if (!focused) return wanted;
  const { top, bottom } = extent(scroller, focused);
  const highest = top - MARGIN_PX;
  if (top < scroller.scrollTop - 1 || top >= shownTill) return wanted;
  return Math.max(Math.min(wanted, highest), Math.min(bottom + MARGIN_PX - scroller.clientHeight, highest));
}

/**
 * How far down following the end may go: to the end, but not past the start of the first
 * open request not yet scrolled past (a widget taller than the view shows its question,
 * not its last button), nor so far that the focused control leaves the view. Never up.
 */
function followingTop(scroller: HTMLElement, shownTill: number): number {
  const current = scroller.scrollTop;
  let wanted = scroller.scrollHeight - scroller.clientHeight;
  for (const widget of scroller.querySelectorAll(OPEN_WIDGET)) {
    const start = extent(scroller, widget).top - MARGIN_PX;
    if (start < current - 1) continue;
    wanted = Math.min(wanted, start);
    break;
  }
  return Math.max(current, keepInView(scroller, wanted, shownTill));
}

/**
 * Keeps a scroll container at its end while its content grows (streamed text, a widget
 * that loads), unless the person scrolled up to read; back at the end, it sticks again,
 * and so does `follow()` (call it when the person sends a message: they mean to follow the
 * conversation). Following stops at the start of a new request, so its question shows
 * rather than its end, and never scrolls away the control the person is using in an open
 * widget; when the view shrinks under that control (an on-screen keyboard opens), it
 * scrolls the control back into view. `place` says whether the person follows the end or
 * reads above it, and whether something arrived below meanwhile; `jumpToLatest()` brings
 * them back (to the start of a waiting request, if one is below). Attach `scrollRef` to the
 * scrolling element and `contentRef` to what grows.
 */
export function useStickToBottom<T extends HTMLElement>() {
  const scrollRef = useRef<T>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [place, setPlace] = useState<ScrollPlace>("following");
  useEffect(() => {
    const scroller = scrollRef.current;
    const content = contentRef.current;
    if (!scroller || !content || typeof ResizeObserver === "undefined") return;
    let lastTop = scroller.scrollTop;
    // From the view's top to the end: it grows when something arrives below, not when the
    // view shrinks, nor when earlier messages are put above (the reading place is kept).
    const toTheEnd = () => scroller.scrollHeight - scroller.scrollTop;
    let lastToTheEnd = toTheEnd();
    let lastHeight = scroller.clientHeight;
    const remember = () => {
      lastTop = scroller.scrollTop;
      lastToTheEnd = toTheEnd();
      lastHeight = scroller.clientHeight;
    };
    // Only scrolling up unsticks: our own scrolls go down, even when the content grew meanwhile.
    const onScroll = () => {
      const top = scroller.scrollTop;
      if (scroller.scrollHeight - top - scroller.clientHeight < AT_THE_END_PX) stuck.current = true;
      else if (top < lastTop - 1) stuck.current = false;
      remember();
      if (stuck.current) setPlace("following");
      else setPlace((now) => (now === "following" ? "reading" : now));
    };
    const settle = () => {
      const shownTill = scroller.scrollTop + Math.max(lastHeight, scroller.clientHeight);
      if (stuck.current) scroller.scrollTop = followingTop(scroller, shownTill);
      else {
        if (toTheEnd() > lastToTheEnd + 1) setPlace("behind");
        scroller.scrollTop = keepInView(scroller, scroller.scrollTop, shownTill);
      }
      remember();
    };
    const observer = new ResizeObserver(settle);
    scroller.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(content);
    observer.observe(scroller);
    settle();
    return () => {
      scroller.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, []);
  const follow = useCallback(() => {
    stuck.current = true;
    setPlace("following");
    const scroller = scrollRef.current;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }, []);
  const jumpToLatest = useCallback((behavior: ScrollBehavior) => {
    stuck.current = true;
    setPlace("following");
    const scroller = scrollRef.current;
    if (scroller)
      scroller.scrollTo({ top: followingTop(scroller, scroller.scrollTop + scroller.clientHeight), behavior });
  }, []);
  return { scrollRef, contentRef, follow, jumpToLatest, place };
}
