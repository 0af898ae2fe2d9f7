"use client";

import type { ReactNode } from "react";
import { fieldId, useFormContext } from "./form-context.js";
import { pathKey } from "./issue-message.js";

/** @internal The ids and state a field's control needs for its ARIA attributes. */
export interface FieldA11y {
  id: string;
  invalid: boolean;
  describedBy: string | undefined;
  messages: string[];
  helpId: string;
  errorId: string;
}

/** @internal Computes a field's ids, its messages and its `aria-describedby`. */
export function useFieldA11y(path: readonly string[], help: string | undefined): FieldA11y {
  const { idBase, messages } = useFormContext();
  const id = fieldId(idBase, path);
  const own = messages.get(pathKey(path)) ?? [];
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const ids = [help ? helpId : undefined, own.length > 0 ? errorId : undefined].filter(Boolean);
  return {
    id,
    invalid: own.length > 0,
    describedBy: ids.length ? ids.join(" ") : undefined,
    messages: own,
    helpId,
    errorId,
  };
}

/** @internal The marker shown after the label of a required field. */
export function RequiredMark({ required }: { required: boolean }) {
  if (!required) return null;
  return (
    <span className="hitl-field__required" aria-hidden="true">
      *
    </span>
  );
}

/** @internal Help and error text under a control. */
export function FieldNotes({ a11y, help }: { a11y: FieldA11y; help: string | undefined }) {
  return (
    <>
      {help ? (
        <p className="hitl-field__help" id={a11y.helpId}>
          {help}
        </p>
      ) : null}
      {a11y.messages.length > 0 ? (
        <p className="hitl-field__error" id={a11y.errorId} tabIndex={-1}>
          {a11y.messages.join(" ")}
        </p>
      ) : null}
    </>
  );
}

/** @internal A labelled field: label, control, help, error. */
export function FieldShell(props: {
  a11y: FieldA11y;
  label: string;
  required: boolean;
  help: string | undefined;
  kind: string;
  children: ReactNode;
}) {
  const { a11y, label, required, help, kind, children } = props;
  return (
    <div className={`hitl-field hitl-field--${kind}`} data-invalid={a11y.invalid || undefined}>
      <label className="hitl-field__label" htmlFor={a11y.id}>
        {label}
        <RequiredMark required={required} />
      </label>
      {children}
      <FieldNotes a11y={a11y} help={help} />
    </div>
  );
}
