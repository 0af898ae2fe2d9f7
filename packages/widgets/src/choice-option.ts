import type { ReactNode } from "react";

/** One option of a picker: the value it stands for and what the person sees. */
export interface ChoiceOption<Value = string> {
  value: Value;
  /** The option's accessible name and visible text. */
  label: string;
  /** A second line under the label. */
  description?: string;
  disabled?: boolean;
}

/** Draws an option's picture (a thumbnail, a swatch, a ratio box); it is decorative, the label names the option. */
export type RenderVisual<Value> = (option: ChoiceOption<Value>) => ReactNode;

/** The options of an `askQuestion` request, from `input.choices`. */
export function choicesOf(input: unknown): ChoiceOption<string>[] {
  const choices = (input as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.filter((c): c is string => typeof c === "string").map((c) => ({ value: c, label: c }));
}

function leaves(value: unknown, into: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) leaves(item, into);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) leaves(item, into);
  else into.push(value);
  return into;
}

/**
 * The options an answer refers to, for showing what was chosen: an option is chosen when
 * `toAnswer` maps it to the answer, or when its value appears among the answer's values.
 */
export function chosenOptions<Value>(
  options: readonly ChoiceOption<Value>[],
  answer: unknown,
  toAnswer?: (option: ChoiceOption<Value>) => unknown,
): ChoiceOption<Value>[] {
  const json = JSON.stringify(answer);
  if (toAnswer) {
    const exact = options.filter((option) => JSON.stringify(toAnswer(option)) === json);
    if (exact.length > 0) return exact;
  }
  const values = leaves(answer);
  return options.filter((option) =>
    values.some((v) => v === option.value || JSON.stringify(v) === JSON.stringify(option.value)),
  );
}
