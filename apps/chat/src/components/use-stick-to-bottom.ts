import { useCallback, useEffect, useRef } from "react";

/**
 * Keeps a scroll container at its bottom while its content grows (streamed text, a
 * widget that loads), unless the person scrolled up to read; back at the bottom, it sticks
 * again, and so does `follow()` (call it when the person sends a message: they mean to
 * follow the conversation). Attach `scrollRef` to the scrolling element and `contentRef`
 * to what grows.
 */
export function useStickToBottom<T extends HTMLElement>() {
  const scrollRef = useRef<T>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  useEffect(() => {
    const scroller = scrollRef.current;
    const content = contentRef.current;
    if (!scroller || !content || typeof ResizeObserver === "undefined") return;
    let lastTop = scroller.scrollTop;
    // Only scrolling up unsticks: our own scrolls go down, even when the content grew meanwhile.
    const onScroll = () => {
      const top = scroller.scrollTop;
      if (scroller.scrollHeight - top - scroller.clientHeight < 48) stuck.current = true;
      else if (top < lastTop - 1) stuck.current = false;
      lastTop = top;
    };
    const observer = new ResizeObserver(() => {
      if (stuck.current) scroller.scrollTop = scroller.scrollHeight;
    });
    scroller.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(content);
    scroller.scrollTop = scroller.scrollHeight;
    return () => {
      scroller.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, []);
  const follow = useCallback(() => {
    stuck.current = true;
    const scroller = scrollRef.current;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }, []);
  return { scrollRef, contentRef, follow };
}
