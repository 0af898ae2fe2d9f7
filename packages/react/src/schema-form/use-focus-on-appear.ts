"use client";

import { type RefObject, useEffect, useRef } from "react";

const focusable =
  'input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), [tabindex="0"]';

const nonTextInputs = new Set(["button", "checkbox", "radio", "submit", "reset", "image", "range", "color", "file"]);

/** How far below the end of what the person sees a new widget may start and still count as "at the end". */
const AT_THE_END_PX = 64;
/** How much of a widget must be on screen (all of a shorter one) before it takes focus there. */
const SEEN_PX = 120;

const clipping = new Set(["auto", "scroll", "hidden", "clip", "overlay"]);

/** Whether a widget's status (its `data-state`) still asks something: pending, submitting, or refused (error). */
export function isOpenStatus(status: string | null): boolean {
  return status === "pending" || status === "submitting" || status === "error";
}

function isTextEntry(element: Element): boolean {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return !nonTextInputs.has(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}

/** The part of the window the element can show through: the viewport, cut by every ancestor that clips (a scrolling chat log). */
function clipOf(element: HTMLElement): { top: number; bottom: number } {
  const view = element.ownerDocument.defaultView;
  let top = 0;
  let bottom = view?.innerHeight ?? Number.POSITIVE_INFINITY;
  for (let parent = element.parentElement; parent && view; parent = parent.parentElement) {
    if (!clipping.has(view.getComputedStyle(parent).overflowY)) continue;
    const box = parent.getBoundingClientRect();
    top = Math.max(top, box.top);
    bottom = Math.min(bottom, box.bottom);
  }
  return { top, bottom };
}

/** The widget starts on screen or just below its end: the person is at the end of the chat, where it appeared. */
function atTheEnd(root: HTMLElement): boolean {
  const rect = root.getBoundingClientRect();
  const clip = clipOf(root);
  return rect.top <= clip.bottom + AT_THE_END_PX && rect.bottom >= clip.top;
}

/** Enough of the widget is on screen for the person to be looking at it. */
function seen(root: HTMLElement): boolean {
  const rect = root.getBoundingClientRect();
  const clip = clipOf(root);
  const shown = Math.min(rect.bottom, clip.bottom) - Math.max(rect.top, clip.top);
  return shown >= Math.min(rect.height, SEEN_PX) - 1;
}

/** Focus sits in a widget that still asks something (an answered one keeps focus on its frame, but has no claim on it). */
function inOpenWidget(element: Element): boolean {
  const widget = element.closest("[data-hitl-widget]");
  return widget !== null && isOpenStatus(widget.getAttribute("data-state"));
}

function focusInto(root: HTMLElement, preventScroll: boolean): void {
  const active = root.ownerDocument.activeElement;
  if (active && active !== root.ownerDocument.body) {
    if (isTextEntry(active) || inOpenWidget(active)) return;
  }
  const marked = root.matches("[data-hitl-autofocus]")
    ? root
    : root.querySelector<HTMLElement>("[data-hitl-autofocus]");
  const target = marked ?? root.querySelector<HTMLElement>(focusable) ?? root;
  target.focus({ preventScroll });
}

/**
 * Moves focus into a widget when it appears: to its `[data-hitl-autofocus]` element (the
 * root itself when it carries the marker), else its first control, else the root. It
 * leaves focus alone when the person is typing in a text field or is inside another
 * widget that is still open (the first of parallel requests keeps it); focus left in an
 * answered widget (`data-state` resolved, declined, cancelled or expired) moves on.
 *
 * A widget that appears while the person has scrolled away from the end of the chat
 * (reading earlier messages) neither scrolls them nor takes focus then: it takes focus,
 * without scrolling, once the person (or the app following the conversation) brings it on
 * screen, if it is still open.
 * @param enabled whether the widget is open; focus moves at most once, and not after it settles.
 */
export function useFocusOnAppear(ref: RefObject<HTMLElement | null>, enabled: boolean): void {
  const moved = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the frame's element is the same for its whole life
  useEffect(() => {
    const root = ref.current;
    if (!enabled || !root || moved.current) return;
    if (atTheEnd(root)) {
      moved.current = true;
      focusInto(root, false);
      return;
    }
    const document = root.ownerDocument;
    const view = document.defaultView;
    const stop = () => {
      document.removeEventListener("scroll", onMove, true);
      view?.removeEventListener("resize", onMove);
    };
    const onMove = () => {
      if (!seen(root)) return;
      moved.current = true;
      stop();
      focusInto(root, true);
    };
    // Scroll events do not bubble; a capturing listener on the document hears every scroller's.
    document.addEventListener("scroll", onMove, { capture: true, passive: true });
    view?.addEventListener("resize", onMove, { passive: true });
    return stop;
  }, [enabled]);
}
