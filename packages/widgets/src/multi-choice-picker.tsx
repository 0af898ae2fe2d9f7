"use client";

import type { WidgetProps } from "@hitl-kit/react";
import { type ChoiceOption, choicesOf, type RenderVisual } from "./choice-option.js";
import { useKitTexts } from "./kit-texts.js";
import { PickerCore } from "./picker-core.js";

/** How the chosen options become the answer; optional when the answer is `{ answers: values }`. */
export type MultiAnswerMapping<Answer, Value> = { answers: Value[] } extends Answer
  ? { toAnswer?: (options: ChoiceOption<Value>[]) => Answer }
  : { toAnswer: (options: ChoiceOption<Value>[]) => Answer };

/** Props of {@link MultiChoicePicker}. */
export type MultiChoicePickerProps<Input = unknown, Answer = unknown, Value = string> = WidgetProps<Input, Answer> &
  MultiAnswerMapping<Answer, Value> & {
    /** The options; by default `request.input.choices` (strings). */
    options?: readonly ChoiceOption<Value>[];
    /** The fewest options to choose; by default the answer schema's `minItems`, else 1. */
    min?: number;
    /** The most options to choose; by default the answer schema's `maxItems`, else no limit. */
    max?: number;
    submitLabel?: string;
    layout?: "list" | "grid";
    renderVisual?: RenderVisual<Value>;
    hideLabels?: boolean;
    className?: string;
  };

/** `minItems`/`maxItems` of the answer schema's array (the root, or its first array property). */
export function arrayLimits(schema: Record<string, unknown>): { min?: number; max?: number } {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const array = schema.type === "array" ? schema : Object.values(props).find((p) => p?.type === "array");
  if (!array) return {};
  const pick = (v: unknown) => (typeof v === "number" ? v : undefined);
  return { min: pick(array.minItems), max: pick(array.maxItems) };
}

/**
 * A multiple choice: a group of checkboxes, each its own Tab stop (arrow keys move too, Space
 * toggles, Enter or the button submits), honouring a minimum and maximum count.
 * @example
 * <MultiChoicePicker {...props} max={3} toAnswer={(options) => ({ tags: options.map((o) => o.value) })} />
 */
export function MultiChoicePicker<Input = unknown, Answer = unknown, Value = string>(
  props: MultiChoicePickerProps<Input, Answer, Value>,
) {
  const texts = useKitTexts();
  const options = props.options ?? (choicesOf(props.request.input) as unknown as ChoiceOption<Value>[]);
  const toAnswer =
    props.toAnswer ?? ((chosen: ChoiceOption<Value>[]) => ({ answers: chosen.map((o) => o.value) }) as Answer);
  const limits = arrayLimits(props.request.answerSchema);
  return (
    <PickerCore<Value>
      {...(props as WidgetProps<unknown, unknown>)}
      options={options}
      multiple
      min={props.min ?? limits.min ?? 1}
      max={props.max ?? limits.max}
      toAnswer={toAnswer}
      submitLabel={props.submitLabel ?? texts.choose}
      layout={props.layout ?? "list"}
      renderVisual={props.renderVisual}
      hideLabels={props.hideLabels}
      className={["hitl-multi-choice-picker", props.className].filter(Boolean).join(" ")}
    />
  );
}
