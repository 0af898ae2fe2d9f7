import { type RefObject, useEffect } from "react";

const focusable =
  'input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), [tabindex="0"]';

const nonTextInputs = new Set(["button", "checkbox", "radio", "submit", "reset", "image", "range", "color", "file"]);

function isTextEntry(element: Element): boolean {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return !nonTextInputs.has(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}

/**
 * Moves focus into a widget when it mounts: to its `[data-hitl-autofocus]` element (the root
 * itself when it carries the marker), else its first control, else the root. It leaves focus
 * alone when the person is typing in a text field or is already inside another widget (the
 * first of parallel requests keeps it).
 * @param enabled read once, on mount; pass `false` for a widget that is already settled.
 */
export function useFocusOnAppear(ref: RefObject<HTMLElement | null>, enabled: boolean): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves only when the widget appears
  useEffect(() => {
    const root = ref.current;
    if (!enabled || !root) return;
    const active = root.ownerDocument.activeElement;
    if (active && active !== root.ownerDocument.body) {
      if (isTextEntry(active) || active.closest("[data-hitl-widget]")) return;
    }
    const marked = root.matches("[data-hitl-autofocus]")
      ? root
      : root.querySelector<HTMLElement>("[data-hitl-autofocus]");
    const target = marked ?? root.querySelector<HTMLElement>(focusable) ?? root;
    target.focus({ preventScroll: false });
  }, []);
}
