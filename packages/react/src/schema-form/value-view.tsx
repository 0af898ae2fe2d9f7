"use client";

import type { JsonSchema } from "@hitl-kit/protocol";
import { useWidgetTexts } from "../use-widget-texts.js";
import { enumOptions, labelOf } from "./schema-node.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function Scalar({ value }: { value: unknown }) {
  if (isPrimitive(value))
    return (
      <span className="hitl-value" dir="auto">
        {String(value)}
      </span>
    );
  if (Array.isArray(value) && value.every(isPrimitive))
    return (
      <span className="hitl-value" dir="auto">
        {value.join(", ")}
      </span>
    );
  return (
    <pre className="hitl-code" dir="ltr">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/**
 * Shows a JSON value readably, as text (never HTML): an object as a list of labelled
 * values (nested objects and arrays as formatted JSON), anything else on one line.
 * Widgets use it for a call's input and for the answer a request was resolved with. Given
 * the value's `schema`, a key is labelled by its property's `title` and a choice by its
 * option's `title`, as the form showed them.
 * @example
 * <ValueView value={request.input} />
 */
export function ValueView({ value, schema, className }: { value: unknown; schema?: JsonSchema; className?: string }) {
  const texts = useWidgetTexts();
  if (value === undefined) return <p className="hitl-muted">{texts.nothing}</p>;
  if (!isPlainObject(value)) return <Scalar value={value} />;
  const entries = Object.entries(value);
  if (entries.length === 0) return <p className="hitl-muted">{texts.nothing}</p>;
  return (
    <dl className={["hitl-values", className].filter(Boolean).join(" ")}>
      {entries.map(([key, item]) => {
        const field = (schema?.properties as Record<string, JsonSchema> | undefined)?.[key] ?? {};
        const option = enumOptions(field)?.find((choice) => choice.value === item);
        return (
          <div className="hitl-values__row" key={key}>
            <dt className="hitl-values__key">{labelOf(field, key, texts)}</dt>
            <dd className="hitl-values__value">
              <Scalar value={option ? option.label : item} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
