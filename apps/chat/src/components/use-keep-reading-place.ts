import { type RefObject, useCallback, useLayoutEffect, useRef } from "react";

/**
 * Keeps the message the person is reading in place while older messages are put above it.
 * Chromium does not anchor the scroll at its very top, where "Show earlier messages" sits,
 * so the view would move down by the height of the page loaded. Call `holdPlace()` just
 * before loading; once the first message changed, the scroller is put back at the same
 * distance from its bottom, before the browser paints.
 * @param firstKey the id of the first message shown.
 */
export function useKeepReadingPlace(scrollRef: RefObject<HTMLElement | null>, firstKey: string | undefined) {
  const fromBottom = useRef<number | undefined>(undefined);
  const holdPlace = useCallback(() => {
    const scroller = scrollRef.current;
    if (scroller) fromBottom.current = scroller.scrollHeight - scroller.scrollTop;
  }, [scrollRef]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the place is restored when the first message changes
  useLayoutEffect(() => {
    const scroller = scrollRef.current;
    if (!scroller || fromBottom.current === undefined) return;
    scroller.scrollTop = scroller.scrollHeight - fromBottom.current;
    fromBottom.current = undefined;
  }, [firstKey]);
  return holdPlace;
}
