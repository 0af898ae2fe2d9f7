import { jsonEqual } from "@hitl-kit/protocol/internal";
import type { ReactNode } from "react";

/** One option of a picker: the value it stands for and what the person sees. */
export interface ChoiceOption<Value = string> {
  /** What the option stands for; `toAnswer` turns it into the answer. */
  value: Value;
  /** The option's accessible name and visible text. */
  label: string;
  /** A second line under the label. */
  description?: string;
  /** Shown but not choosable. */
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

/** Every primitive in a value, as JSON, and with `withNodes` every array and object too. */
function parts(value: unknown, withNodes: boolean, into: string[] = []): string[] {
  if (typeof value === "object" && value !== null) {
    if (withNodes) into.push(JSON.stringify(value));
    for (const item of Array.isArray(value) ? value : Object.values(value)) parts(item, withNodes, into);
  } else if (value !== undefined) into.push(JSON.stringify(value));
  return into;
}

function attempt(map: () => unknown): unknown {
  try {
    return map();
  } catch {
    return undefined;
  }
}

/**
 * The options whose own part of the answer is all in it: the values `toAnswer` gives an
 * option alone, less those every option gives (a count, a constant), so an answer of
 * several options (`{ mediaIds: ["a", "b"] }`) finds each of them.
 */
function chosenByParts<Value>(
  options: readonly ChoiceOption<Value>[],
  answer: unknown,
  toAnswer: (option: ChoiceOption<Value>) => unknown,
): ChoiceOption<Value>[] {
  const inAnswer = new Set(parts(answer, false));
  const own = options.map(
    (option) =>
      new Set(
        parts(
          attempt(() => toAnswer(option)),
          false,
        ),
      ),
  );
  const shared = own.length > 1 ? [...(own[0] ?? [])].filter((part) => own.every((set) => set.has(part))) : [];
  return options.filter((_, index) => {
    const distinct = [...(own[index] ?? [])].filter((part) => !shared.includes(part));
    return distinct.length > 0 && distinct.every((part) => inAnswer.has(part));
  });
}

/**
 * The options an answer refers to, for showing what was chosen: the option `toAnswer`
 * maps to exactly the answer; else each option whose part of the answer (what `toAnswer`
 * makes of it alone) is all in the answer, so one mapping serves single and multiple
 * answers; else each option whose value (a string, or a whole object) appears in the answer.
 */
export function chosenOptions<Value>(
  options: readonly ChoiceOption<Value>[],
  answer: unknown,
  toAnswer?: (option: ChoiceOption<Value>) => unknown,
): ChoiceOption<Value>[] {
  if (answer === undefined) return [];
  if (toAnswer) {
    const exact = options.filter((option) =>
      jsonEqual(
        attempt(() => toAnswer(option)),
        answer,
      ),
    );
    if (exact.length > 0) return exact;
    const byParts = chosenByParts(options, answer, toAnswer);
    if (byParts.length > 0) return byParts;
  }
  const inAnswer = new Set(parts(answer, true));
  return options.filter((option) => inAnswer.has(JSON.stringify(option.value)));
}
