"use client";

import type { WidgetProps } from "@hitl-kit/react";
import { ChoicePicker } from "./choice-picker.js";
import { FreeformAnswer } from "./freeform-answer.js";

/** The input of an `askQuestion` request: the question and, optionally, answers to pick from. */
export interface AskQuestionInput {
  /** The question the model asks. */
  question?: string;
  /** Answers to offer; without them the person types one. */
  choices?: readonly string[] | undefined;
}

/**
 * Props of {@link AskQuestionWidget}: an `askQuestion` request (its input may be widened
 * with fields of your own), answered with `{ answer }`.
 */
export type AskQuestionWidgetProps<Input extends AskQuestionInput | undefined = AskQuestionInput> = WidgetProps<
  Input,
  { answer: string }
> & {
  /** The submit button's text; the widget texts' `choose` ("Choose") with choices, `send` ("Send") without. */
  submitLabel?: string;
  /** The text box's placeholder, when there are no choices. */
  placeholder?: string;
  className?: string;
};

/**
 * The widget for the built-in `askQuestion` tool: the choices as a {@link ChoicePicker}
 * when the model gave any, else a {@link FreeformAnswer}; either way the answer is
 * `{ answer }`, and once answered it shows the choice or the text.
 * @example
 * const widgets = createWidgetRegistry<typeof tools>().add("ask_question", AskQuestionWidget);
 */
export function AskQuestionWidget<Input extends AskQuestionInput | undefined = AskQuestionInput>(
  props: AskQuestionWidgetProps<Input>,
) {
  const choices = props.request.input?.choices ?? [];
  const className = ["hitl-ask-question", props.className].filter(Boolean).join(" ");
  if (choices.length > 0) {
    return (
      <ChoicePicker<Input, { answer: string }>
        {...props}
        className={className}
        options={choices.map((choice) => ({ value: choice, label: choice }))}
      />
    );
  }
  return (
    <FreeformAnswer<Input, { answer: string }> {...props} className={className} toAnswer={(answer) => ({ answer })} />
  );
}
