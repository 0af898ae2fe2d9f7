"use client";

import type { WidgetProps } from "@hitl-kit/react";
import { type ChoiceOption, choicesOf, type RenderVisual } from "./choice-option.js";
import { useKitTexts } from "./kit-texts.js";
import { PickerCore } from "./picker-core.js";

/** How an option becomes the answer; optional when the answer is `{ answer: value }` (as for `askQuestion`). */
export type SingleAnswerMapping<Answer, Value> = { answer: Value } extends Answer
  ? { toAnswer?: (option: ChoiceOption<Value>) => Answer }
  : { toAnswer: (option: ChoiceOption<Value>) => Answer };

/** Props of {@link ChoicePicker}. */
export type ChoicePickerProps<Input = unknown, Answer = unknown, Value = string> = WidgetProps<Input, Answer> &
  SingleAnswerMapping<Answer, Value> & {
    /** The options; by default `request.input.choices` (strings), as `askQuestion` sends them. */
    options?: readonly ChoiceOption<Value>[];
    /** The submit button's text; the widget texts' `choose` ("Choose") by default. */
    submitLabel?: string;
    /** A vertical list (default) or a grid of cards. */
    layout?: "list" | "grid";
    /** Draws a picture for each option. */
    renderVisual?: RenderVisual<Value>;
    /** Keeps the labels for screen readers only. */
    hideLabels?: boolean;
    className?: string;
  };

/**
 * A single choice: a radio group with a roving tabindex (arrow keys move and choose,
 * Enter or the button submits). Out of the box it answers an `askQuestion` request with
 * choices as `{ answer }`; map any other input to options and an option to the answer.
 * @example
 * <ChoicePicker
 *   {...props}
 *   options={props.request.input.templates.map((t) => ({ value: t.id, label: t.name }))}
 *   toAnswer={(option) => ({ templateId: option.value })}
 * />
 */
export function ChoicePicker<Input = unknown, Answer = unknown, Value = string>(
  props: ChoicePickerProps<Input, Answer, Value>,
) {
  const texts = useKitTexts();
  const options = props.options ?? (choicesOf(props.request.input) as unknown as ChoiceOption<Value>[]);
  const toAnswer = props.toAnswer ?? ((option: ChoiceOption<Value>) => ({ answer: option.value }) as Answer);
  return (
    <PickerCore<Value>
      {...(props as WidgetProps<unknown, unknown>)}
      options={options}
      multiple={false}
      min={1}
      max={1}
      toAnswer={(chosen) => toAnswer(chosen[0] as ChoiceOption<Value>)}
      submitLabel={props.submitLabel ?? texts.choose}
      layout={props.layout ?? "list"}
      renderVisual={props.renderVisual}
      hideLabels={props.hideLabels}
      className={["hitl-choice-picker", props.className].filter(Boolean).join(" ")}
    />
  );
}
