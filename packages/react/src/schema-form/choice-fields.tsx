"use client";

import { useWidgetTexts } from "../use-widget-texts.js";
import { FieldNotes, RequiredMark, useFieldA11y } from "./field-shell.js";
import { useFormContext } from "./form-context.js";
import { draftAt } from "./form-draft.js";
import type { FieldProps } from "./schema-field.js";
import { descriptionOf, labelOf } from "./schema-node.js";

/** Up to this many options render as radio buttons; more as a select. */
const maxRadios = 5;

/** @internal A single choice: a radio group for few options, a select for many. */
export function EnumField({ node, path, required }: FieldProps<"enum">) {
  const { draft, setDraft, disabled } = useFormContext();
  const texts = useWidgetTexts();
  const help = descriptionOf(node.schema);
  const a11y = useFieldA11y(path, help);
  const label = labelOf(node.schema, path.at(-1), texts);
  const current = String(draftAt(draft, path) ?? "");
  if (node.options.length > maxRadios) {
    return (
      <div className="hitl-field hitl-field--select" data-invalid={a11y.invalid || undefined}>
        <label className="hitl-field__label" htmlFor={a11y.id}>
          {label}
          <RequiredMark required={required} />
        </label>
        <select
          id={a11y.id}
          className="hitl-select"
          disabled={disabled}
          value={current}
          required={required}
          aria-invalid={a11y.invalid || undefined}
          aria-describedby={a11y.describedBy}
          onChange={(event) => setDraft(path, event.currentTarget.value)}
        >
          <option value="">{texts.pick}</option>
          {node.options.map((option, index) => (
            <option key={String(index)} value={String(index)}>
              {option.label}
            </option>
          ))}
        </select>
        <FieldNotes a11y={a11y} help={help} />
      </div>
    );
  }
  return (
    <div
      className="hitl-field hitl-field--radios hitl-choices"
      role="radiogroup"
      id={a11y.id}
      aria-labelledby={`${a11y.id}-label`}
      aria-required={required || undefined}
      aria-invalid={a11y.invalid || undefined}
      aria-describedby={a11y.describedBy}
      data-invalid={a11y.invalid || undefined}
    >
      <span className="hitl-field__label" id={`${a11y.id}-label`}>
        {label}
        <RequiredMark required={required} />
      </span>
      {node.options.map((option, index) => (
        <label className="hitl-check" key={String(index)}>
          <input
            type="radio"
            disabled={disabled}
            className="hitl-check__input"
            name={a11y.id}
            value={String(index)}
            checked={current === String(index)}
            onChange={() => setDraft(path, String(index))}
          />
          <span className="hitl-check__label">{option.label}</span>
        </label>
      ))}
      <FieldNotes a11y={a11y} help={help} />
    </div>
  );
}

/** @internal A multi-select: one checkbox per option, with the `minItems`/`maxItems` limits as help. */
export function MultiField({ node, path, required }: FieldProps<"multi">) {
  const { draft, setDraft, disabled } = useFormContext();
  const texts = useWidgetTexts();
  const { minItems, maxItems } = node.schema;
  const min = typeof minItems === "number" ? minItems : 0;
  const max = typeof maxItems === "number" ? maxItems : 0;
  const limit = min > 0 || max > 0 ? texts.limits(min, max) : undefined;
  const help = [descriptionOf(node.schema), limit].filter(Boolean).join(" ") || undefined;
  const a11y = useFieldA11y(path, help);
  const chosen = (draftAt(draft, path) as number[] | undefined) ?? [];
  const full = typeof maxItems === "number" && chosen.length >= maxItems;
  return (
    <fieldset
      className="hitl-field hitl-field--checkboxes hitl-choices"
      id={a11y.id}
      aria-describedby={a11y.describedBy}
      data-invalid={a11y.invalid || undefined}
    >
      <legend className="hitl-field__label">
        {labelOf(node.schema, path.at(-1), texts)}
        <RequiredMark required={required} />
      </legend>
      {node.options.map((option, index) => {
        const checked = chosen.includes(index);
        return (
          <label className="hitl-check" key={String(index)}>
            <input
              type="checkbox"
              className="hitl-check__input"
              checked={checked}
              disabled={disabled || (!checked && full)}
              aria-invalid={a11y.invalid || undefined}
              onChange={() => setDraft(path, checked ? chosen.filter((i) => i !== index) : [...chosen, index])}
            />
            <span className="hitl-check__label">{option.label}</span>
          </label>
        );
      })}
      <FieldNotes a11y={a11y} help={help} />
    </fieldset>
  );
}
