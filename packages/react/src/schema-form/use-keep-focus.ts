"use client";

import type { RequestStatus } from "@hitl-kit/client";
import { type FocusEvent, type RefObject, useEffect, useRef } from "react";

/** Whether an element that just lost focus can no longer hold it: removed, or disabled. */
function dropped(element: EventTarget): boolean {
  if (!(element instanceof Element) || !element.isConnected) return true;
  return element.matches(":disabled");
}

/**
 * @internal Keeps focus in a widget whose controls change under it. When its status changes
 * (sent, refused, answered, expired) and the control that had focus was removed or disabled,
 * focus would fall to the page; this puts it on the root instead (give the root
 * `tabIndex={-1}` and a name). Focus the person moved elsewhere, or clicked away, is left alone.
 * @returns the focus handlers to put on the root.
 */
export function useKeepFocus(
  ref: RefObject<HTMLElement | null>,
  status: RequestStatus,
): { onFocus: () => void; onBlur: (event: FocusEvent<HTMLElement>) => void } {
  const inside = useRef(false);
  const previous = useRef(status);
  useEffect(() => {
    if (previous.current === status) return;
    previous.current = status;
    const root = ref.current;
    if (!root || !inside.current) return;
    const active = root.ownerDocument.activeElement;
    if (active === null || active === root.ownerDocument.body) root.focus({ preventScroll: true });
  }, [ref, status]);
  return {
    onFocus: () => {
      inside.current = true;
    },
    onBlur: (event) => {
      const next = event.relatedTarget;
      if (next instanceof Node && event.currentTarget.contains(next)) return;
      // Focus went to nothing because the widget removed or disabled its control: still ours.
      inside.current = next === null && dropped(event.target);
    },
  };
}
