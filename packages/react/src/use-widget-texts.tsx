"use client";

import { createContext, type ReactNode, useContext, useMemo } from "react";
import { defaultWidgetTexts, type WidgetTextOverrides, type WidgetTexts } from "./widget-texts.js";

/** The texts of the widgets below: the defaults with every provider's overrides. */
const WidgetTextsContext = createContext<WidgetTexts>(defaultWidgetTexts);

/** `over` on `base`, key by key; a group (`status`, `issues`, …) merges key by key too. */
function mergeTexts<Texts extends object>(base: Texts, over: object): Texts {
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(over)) {
    const under = merged[key];
    if (value !== undefined)
      merged[key] = typeof value === "object" && typeof under === "object" ? { ...under, ...value } : value;
  }
  return merged as Texts;
}

/**
 * Gives every widget below it its texts, in the app's language: the keys you give
 * replace the English defaults, the others stay (a group such as `status` or `issues`
 * merges key by key). A nested provider merges over the one above it. A widget's own
 * props (`submitLabel`, `label`, `labels`, …) still win over it.
 * @example
 * <WidgetTextsProvider value={{ submit: "Envoyer", decline: "Refuser", issues: { required: "Obligatoire." } }}>
 *   <ParkedRequests agent={agent} widgets={widgets} />
 * </WidgetTextsProvider>
 */
export function WidgetTextsProvider({ value, children }: { value: WidgetTextOverrides; children?: ReactNode }) {
  const parent = useContext(WidgetTextsContext);
  const merged = useMemo(() => mergeTexts(parent, value), [parent, value]);
  return <WidgetTextsContext.Provider value={merged}>{children}</WidgetTextsContext.Provider>;
}

/**
 * The texts a widget shows: the English defaults with the overrides of the
 * {@link WidgetTextsProvider}s above it. Texts whose defaults live with their widgets
 * (the keys of `ExtraWidgetTexts`) come with `defaults`, and come back with their overrides.
 * @example
 * const texts = useWidgetTexts();
 * <button type="button">{texts.decline}</button>
 */
export function useWidgetTexts(): WidgetTexts;
/**
 * The texts a widget shows, with texts of its own: `defaults` (the English of keys added to
 * `ExtraWidgetTexts`) under the overrides of the {@link WidgetTextsProvider}s above it.
 * @example
 * const texts = useWidgetTexts(defaultWidgetKitTexts);
 * <label>{texts.yourAnswer}</label>
 */
export function useWidgetTexts<Own extends object>(defaults: Own): WidgetTexts & Own;
export function useWidgetTexts(defaults?: object): WidgetTexts {
  const texts = useContext(WidgetTextsContext);
  return defaults ? mergeTexts(defaults as WidgetTexts, texts) : texts;
}
