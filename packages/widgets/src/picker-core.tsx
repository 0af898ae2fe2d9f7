"use client";

import { busyButtonProps, WidgetFrame, type WidgetProps } from "@hitl-kit/react";
import { type FormEvent, useId, useState } from "react";
import { ChoiceGroup } from "./choice-group.js";
import { type ChoiceOption, chosenOptions, type RenderVisual } from "./choice-option.js";
import { useKitTexts } from "./kit-texts.js";

/** What the single and multiple pickers share. */
export type PickerCoreProps<Value> = WidgetProps<unknown, unknown> & PickerCoreOptions<Value>;

/** The picker options of {@link PickerCoreProps}. */
export interface PickerCoreOptions<Value> {
  options: readonly ChoiceOption<Value>[];
  multiple: boolean;
  min: number;
  max: number | undefined;
  toAnswer: (chosen: ChoiceOption<Value>[]) => unknown;
  submitLabel: string;
  layout: "list" | "grid";
  renderVisual?: RenderVisual<Value>;
  hideLabels?: boolean;
  className: string;
}

/** What a resolved picker shows: the chosen options, each with its picture when the picker draws them. */
function ChosenList<Value>({
  options,
  renderVisual,
}: {
  options: ChoiceOption<Value>[];
  renderVisual?: RenderVisual<Value>;
}) {
  return (
    <ul className={renderVisual ? "hitl-chosen hitl-chosen--visual" : "hitl-chosen"}>
      {options.map((option) => (
        <li key={option.label}>
          {renderVisual ? (
            <span className="hitl-chosen__visual" aria-hidden="true">
              {renderVisual(option)}
            </span>
          ) : null}
          <span className="hitl-chosen__label">{option.label}</span>
        </li>
      ))}
    </ul>
  );
}

/** @internal The form around a {@link ChoiceGroup}: selection, limits, submit and decline, in a {@link WidgetFrame}. */
export function PickerCore<Value>(props: PickerCoreProps<Value>) {
  const { options, multiple, min, max, status, toAnswer } = props;
  const busy = status === "submitting";
  const id = useId();
  const texts = useKitTexts();
  const [selected, setSelected] = useState<number[]>([]);
  const [message, setMessage] = useState<string>();
  // The limits as help: "Choose 2.", "Choose 1 to 3.", "Choose up to 3.", "Choose at least 2." (one is no limit).
  const hint = !multiple
    ? undefined
    : max !== undefined
      ? texts.limits(min, max)
      : min > 1
        ? texts.limits(min, 0)
        : undefined;

  function pick(index: number) {
    setMessage(undefined);
    if (!multiple) return setSelected([index]);
    if (selected.includes(index)) return setSelected(selected.filter((i) => i !== index));
    if (max !== undefined && selected.length >= max) return setMessage(texts.upTo(max));
    setSelected([...selected, index]);
  }

  function submit(chosen: readonly number[]) {
    if (busy) return;
    if (chosen.length < Math.max(min, 1) && !(multiple && min === 0)) {
      setMessage(multiple ? texts.issues.minItems(Math.max(min, 1)) : texts.chooseFirst);
      return;
    }
    const picked = [...chosen].sort((a, b) => a - b).flatMap((i) => (options[i] ? [options[i]] : []));
    props.respond(toAnswer(picked));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit(selected);
  }

  const chosen = chosenOptions(options, props.resolution?.value, (option) => toAnswer([option]));
  const summary = chosen.length > 0 ? <ChosenList options={chosen} renderVisual={props.renderVisual} /> : undefined;
  const describedBy = [hint ? `${id}-hint` : "", message ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

  return (
    <WidgetFrame {...props} summary={summary} className={props.className}>
      <form className="hitl-form" noValidate onSubmit={onSubmit}>
        {options.length === 0 ? <p className="hitl-muted">{texts.noOptions}</p> : null}
        <ChoiceGroup
          options={options}
          multiple={multiple}
          selected={selected}
          onPick={pick}
          onSubmit={submit}
          label={props.request.prompt ?? texts.options}
          describedBy={describedBy}
          disabled={busy}
          invalid={message !== undefined}
          layout={props.layout}
          renderVisual={props.renderVisual}
          hideLabels={props.hideLabels}
        />
        {hint ? (
          <p className="hitl-field__help" id={`${id}-hint`}>
            {hint} {multiple ? texts.selected(selected.length) : ""}
          </p>
        ) : null}
        {message ? (
          <p className="hitl-field__error" id={`${id}-error`} role="alert">
            {message}
          </p>
        ) : null}
        <div className="hitl-actions">
          <button type="submit" className="hitl-button hitl-button--primary" {...busyButtonProps(busy)}>
            {busy ? texts.sending : props.submitLabel}
          </button>
          <button type="button" className="hitl-button" {...busyButtonProps(busy, () => props.decline())}>
            {texts.decline}
          </button>
        </div>
      </form>
    </WidgetFrame>
  );
}
