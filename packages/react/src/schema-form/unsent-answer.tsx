"use client";

import { createContext, useContext, useEffect, useId } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";

/** @internal Where a form inside a `WidgetFrame` tells the frame what its person has typed so far. */
export const UnsentContext = createContext<((text: string) => void) | undefined>(undefined);

/**
 * @internal Tells the enclosing `WidgetFrame` what the person has typed, so that the text
 * stays on screen if the request is cancelled or expires before it is sent.
 */
export function useReportUnsent(text: string): void {
  const report = useContext(UnsentContext);
  useEffect(() => report?.(text), [report, text]);
}

/**
 * @internal What the person had typed when the request settled without it: read-only and
 * selectable, under a note that says it was not sent, so it can be copied.
 */
export function UnsentAnswer({ text }: { text: string }) {
  const texts = useWidgetTexts();
  const id = useId();
  return (
    <div className="hitl-unsent">
      <p className="hitl-muted" id={id}>
        {texts.unsent}
      </p>
      <textarea
        className="hitl-textarea"
        dir="auto"
        readOnly
        value={text}
        rows={Math.min(6, text.split("\n").length + 1)}
        aria-labelledby={id}
      />
    </div>
  );
}
