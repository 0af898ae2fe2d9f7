"use client";

import { type ValidationIssue, validateJsonSchema } from "@hitl-kit/protocol";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";
import { busyButtonProps } from "./busy-button-props.js";
import type { SchemaFormProps } from "./schema-form.js";
import { descriptionOf, labelOf } from "./schema-node.js";
import { useReportUnsent } from "./unsent-answer.js";

function startText(schema: Record<string, unknown>, value: unknown): string {
  const start = value ?? schema.default ?? (schema.type === "object" ? {} : schema.type === "array" ? [] : undefined);
  return start === undefined ? "" : JSON.stringify(start, null, 2);
}

function describe(issue: ValidationIssue): string {
  return issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/**
 * @internal The editor for schemas the form cannot express: the answer as JSON text,
 * parsed and validated against the schema before `onSubmit`, with every issue listed
 * under it and the expected schema on hand.
 */
export function JsonEditor<Value>(props: SchemaFormProps<Value>) {
  const texts = useWidgetTexts();
  const { schema, disabled = false, submitLabel = texts.submit, children, className } = props;
  const id = useId();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const [start] = useState(() => startText(schema, props.defaultValue));
  const [text, setText] = useState(start);
  useReportUnsent(text === start ? "" : text);
  const [ownIssues, setOwnIssues] = useState<ValidationIssue[]>([]);
  const shown = ownIssues.length > 0 ? ownIssues : (props.issues ?? []);
  const help = descriptionOf(schema);

  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current && props.issues && props.issues.length > 0) textRef.current?.focus();
    mounted.current = true;
  }, [props.issues]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (disabled) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      setOwnIssues([{ path: [], message: texts.issues.json((error as Error).message) }]);
      textRef.current?.focus();
      return;
    }
    const result = validateJsonSchema(schema, value);
    setOwnIssues(result.ok ? [] : result.issues);
    if (!result.ok) {
      textRef.current?.focus();
      return;
    }
    props.onSubmit(value as Value);
  }

  const describedBy = [`${id}-help`, shown.length > 0 ? `${id}-error` : undefined].filter(Boolean).join(" ");
  return (
    <form className={["hitl-form hitl-form--json", className].filter(Boolean).join(" ")} noValidate onSubmit={submit}>
      <fieldset className="hitl-form__fields" disabled={disabled}>
        <div className="hitl-field hitl-field--json" data-invalid={shown.length > 0 || undefined}>
          <label className="hitl-field__label" htmlFor={`${id}-json`}>
            {texts.json(labelOf(schema, undefined, texts))}
          </label>
          <textarea
            id={`${id}-json`}
            ref={textRef}
            className="hitl-textarea hitl-textarea--code"
            value={text}
            rows={8}
            spellCheck={false}
            aria-invalid={shown.length > 0 || undefined}
            aria-describedby={describedBy}
            onChange={(event) => setText(event.currentTarget.value)}
          />
          <p className="hitl-field__help" id={`${id}-help`}>
            {help ? `${help} ` : ""}
            {texts.jsonHelp}
          </p>
          {shown.length > 0 ? (
            <ul className="hitl-field__error hitl-issues" id={`${id}-error`}>
              {shown.map((issue) => (
                <li key={describe(issue)}>{describe(issue)}</li>
              ))}
            </ul>
          ) : null}
          <details className="hitl-schema">
            <summary>{texts.shape}</summary>
            <pre className="hitl-code">{JSON.stringify(schema, null, 2)}</pre>
          </details>
        </div>
      </fieldset>
      <div className="hitl-actions">
        <button type="submit" className="hitl-button hitl-button--primary" {...busyButtonProps(disabled)}>
          {submitLabel}
        </button>
        {children}
      </div>
    </form>
  );
}
