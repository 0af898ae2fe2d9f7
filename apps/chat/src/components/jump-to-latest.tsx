import type { RefObject } from "react";
import type { ScrollPlace } from "./use-stick-to-bottom.js";

/** Props of {@link JumpToLatest}. */
export interface JumpToLatestProps {
  /** Where the person is in the transcript; the button shows only when they are not at its end. */
  place: ScrollPlace;
  /** Whether a request waits for the person's answer. */
  waiting: boolean;
  /** The transcript's scrolling element. */
  scrollRef: RefObject<HTMLElement | null>;
  /** Scrolls to the latest message, or to the start of a waiting request (`useStickToBottom`'s). */
  jumpToLatest: (behavior: ScrollBehavior) => void;
}

/** What the button says: that something new or a request is below, when it is. */
export function jumpLabel(place: ScrollPlace, waiting: boolean): string {
  if (waiting) return "Jump to latest: a request waits for you";
  return place === "behind" ? "Jump to latest: new messages" : "Jump to latest";
}

/**
 * "Jump to latest", over the end of the transcript while the person reads earlier
 * messages. It says when new messages arrived meanwhile or a request waits for them;
 * `data-state` is `reading`, `behind` (something new) or `waiting` (a request). It is a
 * plain button after the conversation in the tab order, outside the log, so a screen
 * reader hears it when it gets there, not each time its words change. Pressed, it scrolls
 * (smoothly, unless the person asks for reduced motion) and, since it goes away, moves
 * focus to where it took them: the waiting request's frame (named by its question), else
 * the newest message.
 */
export function JumpToLatest({ place, waiting, scrollRef, jumpToLatest }: JumpToLatestProps) {
  if (place === "following") return null;
  const jump = () => {
    const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    jumpToLatest(reduced ? "auto" : "smooth");
    const scroller = scrollRef.current;
    const target =
      scroller?.querySelector<HTMLElement>(
        '[data-hitl-widget][data-state="pending"], [data-hitl-widget][data-state="error"]',
      ) ?? [...(scroller?.querySelectorAll<HTMLElement>("article[tabindex]") ?? [])].at(-1);
    target?.focus({ preventScroll: true });
  };
  return (
    <button type="button" className="chat-button chat-jump" data-state={waiting ? "waiting" : place} onClick={jump}>
      <span aria-hidden="true">↓</span>
      {jumpLabel(place, waiting)}
    </button>
  );
}
