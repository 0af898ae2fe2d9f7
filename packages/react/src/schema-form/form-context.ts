"use client";

import { createContext, useContext } from "react";
import type { Draft } from "./form-draft.js";

/** What every field of one {@link SchemaForm} shares. */
export interface FormContextValue {
  idBase: string;
  draft: Draft;
  setDraft: (path: readonly string[], value: Draft) => void;
  /** Every control is disabled (an answer is being sent). */
  disabled: boolean;
  /** Messages to show per field, keyed by `pathKey(path)`. */
  messages: ReadonlyMap<string, string[]>;
}

/** @internal */
export const FormContext = createContext<FormContextValue | null>(null);

/** @internal The shared state of the enclosing form. */
export function useFormContext(): FormContextValue {
  const context = useContext(FormContext);
  if (!context) throw new Error("Schema fields render inside <SchemaForm>.");
  return context;
}

/** @internal The DOM id of a field (and, with a suffix, of its help and error text). */
export function fieldId(idBase: string, path: readonly string[], suffix = ""): string {
  const slug = path.map((key) => key.replace(/[^A-Za-z0-9_-]/g, "_")).join("-");
  return `${idBase}-f-${slug}${suffix}`;
}
