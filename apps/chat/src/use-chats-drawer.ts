import { useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

/** Where the sidebar is a drawer (as in responsive.css). */
const narrowScreen = "(max-width: 760px)";

/**
 * The chats drawer of narrow screens (and of wide ones at 200% zoom). Opening it moves focus
 * to its first button ("New chat"); Escape or the scrim closes it and puts focus back on the
 * toggle (☰). While it is open, the chat behind it is to be `inert`, so Tab stays in the
 * drawer; it closes by itself when the screen gets wide, where the sidebar is always shown.
 * Attach `drawerRef` to the sidebar and `toggleRef` to ☰.
 */
export function useChatsDrawer() {
  const [open, setOpen] = useState(false);
  const drawerRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  /** Closes the drawer and gives focus back to ☰ (once the chat it is in is no longer inert). */
  const closeToToggle = useCallback(() => {
    flushSync(() => setOpen(false));
    toggleRef.current?.focus();
  }, []);
  useEffect(() => {
    if (!open) return;
    drawerRef.current?.querySelector<HTMLElement>("button")?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") closeToToggle();
    };
    const narrow = window.matchMedia(narrowScreen);
    const onResize = () => {
      if (!narrow.matches) setOpen(false);
    };
    document.addEventListener("keydown", onKeyDown);
    narrow.addEventListener("change", onResize);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      narrow.removeEventListener("change", onResize);
    };
  }, [open, closeToToggle]);
  return { open, setOpen, closeToToggle, drawerRef, toggleRef };
}
