"use client";

import { useSyncExternalStore } from "react";

/** Where a hardware keyboard is likely: the primary pointer is a mouse or a trackpad, not a finger. */
const keyboardLikely = "(pointer: fine)";

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia?.(keyboardLikely);
  query?.addEventListener("change", onChange);
  return () => query?.removeEventListener("change", onChange);
}

function currentKeys(): "ctrl" | "meta" | undefined {
  if (!window.matchMedia?.(keyboardLikely).matches) return undefined;
  return /Mac|iPhone|iPad|iPod/.test(navigator.platform) ? "meta" : "ctrl";
}

/**
 * @internal Which shortcut sends a text: `"meta"` (⌘+Enter) on Apple's platforms, `"ctrl"`
 * elsewhere, and none where a keyboard is unlikely (a phone, a tablet) or on the server.
 */
export function useSendKeys(): "ctrl" | "meta" | undefined {
  return useSyncExternalStore(subscribe, currentKeys, () => undefined);
}
