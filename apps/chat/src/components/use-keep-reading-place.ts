import { type RefObject, useCallback, useLayoutEffect, useRef } from "react";

/**
 * Keeps the message the person is reading in place while older messages are put above it.
 * Chromium does not anchor the scroll at its very top, where "Show earlier messages" sits,
 * so the view would move down by the height of the page loaded. Call `holdPlace()` just
 * before loading; once the first message changed, the scroller is put back at the same
 * distance from its bottom, before the browser paints. If what had focus went away
 * meanwhile (the button, once no page is left), focus moves to the first message, without
 * scrolling, rather than falling to the page.
 * @param firstKey the id of the first message shown.
 */
export function useKeepReadingPlace(scrollRef: RefObject<HTMLElement | null>, firstKey: string | undefined) {
  const held = useRef<{ fromBottom: number; focused: Element | null } | undefined>(undefined);
  const holdPlace = useCallback(() => {
    const scroller = scrollRef.current;
    if (!scroller) return;
    held.current = { fromBottom: scroller.scrollHeight - scroller.scrollTop, focused: document.activeElement };
  }, [scrollRef]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the place is restored when the first message changes
  useLayoutEffect(() => {
    const scroller = scrollRef.current;
    const place = held.current;
    if (!scroller || !place) return;
    held.current = undefined;
    scroller.scrollTop = scroller.scrollHeight - place.fromBottom;
    if (place.focused && !place.focused.isConnected) {
      scroller.querySelector<HTMLElement>("article")?.focus({ preventScroll: true });
    }
  }, [firstKey]);
  return holdPlace;
}
