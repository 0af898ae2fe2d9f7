import { jsonEqual } from "@hitl-kit/protocol/internal";
import type { FormNode } from "./schema-node.js";

/**
 * What the form holds while the person edits: text fields keep their text, enums the
 * index of the chosen option (`""` for none), multi-selects the chosen indexes.
 */
export type Draft = string | boolean | number[] | { [key: string]: Draft };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** An RFC 3339 date-time as a `datetime-local` input's value, in local time. */
function toLocalDateTime(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The draft of a node, from a starting value, else the schema's `default`. */
export function initialDraft(node: FormNode, value: unknown): Draft {
  const start = value === undefined ? node.schema.default : value;
  switch (node.kind) {
    case "text":
      if (typeof start !== "string") return "";
      return node.inputType === "datetime-local" ? toLocalDateTime(start) : start;
    case "number":
      return typeof start === "number" ? String(start) : "";
    case "boolean":
      return start === true;
    case "enum": {
      const index = node.options.findIndex((option) => jsonEqual(option.value, start));
      return index < 0 ? "" : String(index);
    }
    case "multi": {
      const chosen = Array.isArray(start) ? start : [];
      return node.options.flatMap((option, index) => (chosen.some((v) => jsonEqual(v, option.value)) ? [index] : []));
    }
    case "object": {
      const values = isRecord(start) ? start : {};
      return Object.fromEntries(node.properties.map((p) => [p.key, initialDraft(p.node, values[p.key])]));
    }
  }
}

/**
 * The value a draft stands for, coerced to the schema's types: numbers are numbers, an
 * empty optional field is left out (`undefined`), a date-time is sent as ISO 8601.
 * Text that is not a number stays text so validation reports it.
 */
export function draftToValue(node: FormNode, draft: Draft, required: boolean): unknown {
  switch (node.kind) {
    case "text": {
      const text = typeof draft === "string" ? draft : "";
      if (text === "") return undefined;
      if (node.inputType !== "datetime-local") return text;
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
    case "number": {
      const text = typeof draft === "string" ? draft.trim() : "";
      if (text === "") return undefined;
      const number = Number(text);
      return Number.isFinite(number) ? number : text;
    }
    case "boolean":
      return draft === true;
    case "enum":
      return typeof draft === "string" && draft !== "" ? node.options[Number(draft)]?.value : undefined;
    case "multi": {
      const indexes = Array.isArray(draft) ? [...draft].sort((a, b) => a - b) : [];
      if (indexes.length === 0 && !required) return undefined;
      return indexes.map((index) => node.options[index]?.value);
    }
    case "object": {
      const drafts = isRecord(draft) ? draft : {};
      const entries = node.properties.flatMap((p) => {
        const value = draftToValue(p.node, drafts[p.key] as Draft, p.required);
        return value === undefined ? [] : [[p.key, value] as const];
      });
      // An optional object the person left untouched (unchecked boxes aside) is left out.
      if (!required && !entries.some(([, value]) => value !== false)) return undefined;
      return Object.fromEntries(entries);
    }
  }
}

/** The draft at a path of keys. */
export function draftAt(draft: Draft, path: readonly string[]): Draft | undefined {
  let current: Draft | undefined = draft;
  for (const key of path) current = isRecord(current) ? (current as Record<string, Draft>)[key] : undefined;
  return current;
}

/** A copy of a draft with the value at a path replaced (structural sharing elsewhere). */
export function setDraftAt(draft: Draft, path: readonly string[], value: Draft): Draft {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  const record = isRecord(draft) ? (draft as Record<string, Draft>) : {};
  return { ...record, [key]: setDraftAt(record[key] ?? "", rest, value) };
}

/**
 * What the person typed into a draft's text and number fields, as text to copy: a form of
 * one field gives its text, a form of several one line per filled field (`Label: text`).
 */
export function typedText(node: FormNode, draft: Draft, labelFor: (node: FormNode, key: string) => string): string {
  if (node.kind === "text" || node.kind === "number") return typeof draft === "string" ? draft.trim() : "";
  if (node.kind !== "object" || !isRecord(draft)) return "";
  return node.properties
    .flatMap((p) => {
      const text = typedText(p.node, (draft as Record<string, Draft>)[p.key] ?? "", labelFor);
      if (text === "") return [];
      return [p.node.kind === "object" ? text : `${labelFor(p.node, p.key)}: ${text}`];
    })
    .join("\n");
}
