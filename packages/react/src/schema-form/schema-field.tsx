"use client";

import type { ReactNode } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";
import { EnumField, MultiField } from "./choice-fields.js";
import { FieldNotes, FieldShell, RequiredMark, useFieldA11y } from "./field-shell.js";
import { useFormContext } from "./form-context.js";
import { draftAt } from "./form-draft.js";
import { descriptionOf, type FormNode, labelOf } from "./schema-node.js";

/** @internal What every field component receives. */
export interface FieldProps<Kind extends FormNode["kind"] = FormNode["kind"]> {
  node: Extract<FormNode, { kind: Kind }>;
  path: readonly string[];
  required: boolean;
}

/** @internal Renders the control for one node of the schema. */
export function SchemaField(props: FieldProps) {
  const Field = fields[props.node.kind] as (props: FieldProps) => ReactNode;
  return <Field {...props} />;
}

// A number of the schema, moved by `shift`. A bound at ±MAX_SAFE_INTEGER (Zod's `.int()`)
// limits nothing a person types: none.
function num(value: unknown, shift = 0): number | undefined {
  return typeof value === "number" && Math.abs(value) < 2 ** 53 - 1 ? value + shift : undefined;
}

function TextField({ node, path, required }: FieldProps<"text">) {
  const texts = useWidgetTexts();
  const { draft, setDraft, disabled } = useFormContext();
  const help = descriptionOf(node.schema);
  const a11y = useFieldA11y(path, help);
  const { schema } = node;
  const common = {
    id: a11y.id,
    className: node.multiline ? "hitl-textarea" : "hitl-input",
    dir: "auto",
    value: String(draftAt(draft, path) ?? ""),
    required,
    disabled,
    // Said false until a check finds otherwise: Chromium calls an untouched required date field invalid.
    "aria-invalid": a11y.invalid,
    "aria-describedby": a11y.describedBy,
    // No minLength or maxLength: the browser counts UTF-16 units (an emoji is two), the schema characters.
    onChange: (event: { currentTarget: { value: string } }) => setDraft(path, event.currentTarget.value),
  };
  return (
    <FieldShell a11y={a11y} label={labelOf(schema, path.at(-1), texts)} required={required} help={help} kind="text">
      {node.multiline ? (
        <textarea {...common} rows={4} />
      ) : (
        <input
          {...common}
          type={node.inputType}
          pattern={typeof schema.pattern === "string" ? schema.pattern : undefined}
          autoComplete={node.inputType === "email" ? "email" : "off"}
        />
      )}
    </FieldShell>
  );
}

function NumberField({ node, path, required }: FieldProps<"number">) {
  const texts = useWidgetTexts();
  const { draft, setDraft, disabled } = useFormContext();
  const help = descriptionOf(node.schema);
  const a11y = useFieldA11y(path, help);
  const { schema } = node;
  const step = num(schema.multipleOf) ?? (node.integer ? 1 : "any");
  return (
    <FieldShell a11y={a11y} label={labelOf(schema, path.at(-1), texts)} required={required} help={help} kind="number">
      <input
        id={a11y.id}
        className="hitl-input"
        type="number"
        disabled={disabled}
        inputMode={node.integer ? "numeric" : "decimal"}
        value={String(draftAt(draft, path) ?? "")}
        // An integer's exclusive bound is the next integer in (0 < n is 1 ≤ n).
        min={num(schema.minimum) ?? num(schema.exclusiveMinimum, +node.integer)}
        max={num(schema.maximum) ?? num(schema.exclusiveMaximum, -node.integer)}
        step={step}
        required={required}
        aria-invalid={a11y.invalid}
        aria-describedby={a11y.describedBy}
        onChange={(event) => setDraft(path, event.currentTarget.value)}
      />
    </FieldShell>
  );
}

// A checkbox always has a value (unticked is false), so it carries no required marker.
function BooleanField({ node, path }: FieldProps<"boolean">) {
  const texts = useWidgetTexts();
  const { draft, setDraft, disabled } = useFormContext();
  const help = descriptionOf(node.schema);
  const a11y = useFieldA11y(path, help);
  return (
    <div className="hitl-field hitl-field--boolean" data-invalid={a11y.invalid || undefined}>
      <label className="hitl-check">
        <input
          id={a11y.id}
          type="checkbox"
          className="hitl-check__input"
          checked={draftAt(draft, path) === true}
          disabled={disabled}
          aria-invalid={a11y.invalid || undefined}
          aria-describedby={a11y.describedBy}
          onChange={(event) => setDraft(path, event.currentTarget.checked)}
        />
        <span className="hitl-check__label">{labelOf(node.schema, path.at(-1), texts)}</span>
      </label>
      <FieldNotes a11y={a11y} help={help} />
    </div>
  );
}

function ObjectFieldset({ node, path, required }: FieldProps<"object">) {
  const texts = useWidgetTexts();
  const help = descriptionOf(node.schema);
  const a11y = useFieldA11y(path, help);
  const fields = node.properties.map((property) => (
    <SchemaField key={property.key} node={property.node} path={[...path, property.key]} required={property.required} />
  ));
  // The root object is the form itself; only nested objects get a fieldset.
  if (path.length === 0) {
    return (
      <>
        {fields}
        <FieldNotes a11y={a11y} help={undefined} />
      </>
    );
  }
  return (
    <fieldset className="hitl-fieldset" id={a11y.id} aria-describedby={a11y.describedBy}>
      <legend className="hitl-fieldset__legend">
        {labelOf(node.schema, path.at(-1), texts)}
        <RequiredMark required={required} />
      </legend>
      <FieldNotes a11y={a11y} help={help} />
      <div className="hitl-fieldset__fields">{fields}</div>
    </fieldset>
  );
}

/** The component of each kind of node. */
const fields: { [Kind in FormNode["kind"]]: (props: FieldProps<Kind>) => ReactNode } = {
  text: TextField,
  number: NumberField,
  boolean: BooleanField,
  enum: EnumField,
  multi: MultiField,
  object: ObjectFieldset,
};
