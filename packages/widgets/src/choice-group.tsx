// biome-ignore-all lint/a11y/noStaticElementInteractions: the roles (radio or checkbox) are chosen at run time, which the linter cannot read
// biome-ignore-all lint/a11y/useAriaPropsSupportedByRole: the roles (radio or checkbox) are chosen at run time, which the linter cannot read
// biome-ignore-all lint/a11y/useKeyWithClickEvents: the group handles the keyboard for all its options
"use client";
import { type KeyboardEvent, useId, useRef, useState } from "react";
import type { ChoiceOption, RenderVisual } from "./choice-option.js";

/** Props of {@link ChoiceGroup}. */
export interface ChoiceGroupProps<Value> {
  /** The options, in order; a disabled one is skipped by the arrow keys. */
  options: readonly ChoiceOption<Value>[];
  /** Checkboxes (`true`) or radios (`false`). */
  multiple: boolean;
  /** Indexes of the chosen options. */
  selected: readonly number[];
  /** Called when the person picks (single) or toggles (multiple) an option. */
  onPick: (index: number) => void;
  /** Enter: submit the chosen options (none when nothing is checked yet). */
  onSubmit: (selected: readonly number[]) => void;
  /** The group's accessible name. */
  label: string;
  /** The id of an element that describes the group (an error message, say). */
  describedBy?: string;
  /** Disables every option (while an answer is being sent, say). */
  disabled?: boolean;
  /** Marks the group `aria-invalid`. */
  invalid?: boolean;
  /** One option per row (`list`, the default) or a grid the arrow keys move through by rows and columns. */
  layout?: "list" | "grid";
  /** Draws each option's picture. */
  renderVisual?: RenderVisual<Value>;
  /** Keeps labels for screen readers only (a grid of thumbnails). */
  hideLabels?: boolean;
}

function step(options: readonly ChoiceOption<unknown>[], from: number, delta: number): number {
  const count = options.length;
  for (let i = 1; i <= count; i++) {
    const next = (((from + delta * i) % count) + count) % count;
    if (!options[next]?.disabled) return next;
  }
  return from;
}

/** Items per row of a grid, measured; 1 when the items sit in one row or cannot be measured. */
function columnsOf(items: HTMLElement[]): number {
  const tops = items.map((item) => item.getBoundingClientRect().top);
  if (tops.length < 2 || tops[0] === tops.at(-1)) return 1;
  return Math.max(1, tops.filter((top) => top === tops[0]).length);
}

/**
 * A group of options, single (`radiogroup` of `radio`s, with a roving tabindex: Tab enters at
 * the chosen option) or multiple (`group` of `checkbox`es, each its own Tab stop). The arrow
 * keys move (and, for radios, choose), Home/End jump, Space chooses, Enter submits.
 */
export function ChoiceGroup<Value>(props: ChoiceGroupProps<Value>) {
  const { options, multiple, selected, onPick, disabled = false, layout = "list" } = props;
  const firstEnabled = Math.max(
    0,
    options.findIndex((o) => !o.disabled),
  );
  const [active, setActive] = useState(selected[0] ?? firstEnabled);
  const listRef = useRef<HTMLDivElement>(null);
  const idBase = useId();
  const current = active < options.length ? active : firstEnabled;

  // Radios share one Tab stop (the chosen or last focused one); checkboxes are each their own.
  function tabStop(index: number): boolean {
    return multiple ? !options[index]?.disabled : index === current;
  }

  function moveTo(index: number) {
    setActive(index);
    listRef.current?.querySelectorAll<HTMLElement>("[data-index]")[index]?.focus();
    if (!multiple && !options[index]?.disabled) onPick(index);
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (disabled) return;
    const items = Array.from(listRef.current?.querySelectorAll<HTMLElement>("[data-index]") ?? []);
    const rows = layout === "grid" ? columnsOf(items) : 1;
    // Right to left, the next option is on the left.
    const forward = listRef.current && getComputedStyle(listRef.current).direction === "rtl" ? -1 : 1;
    const moves: Record<string, number> = {
      ArrowRight: forward,
      ArrowLeft: -forward,
      ArrowDown: rows,
      ArrowUp: -rows,
    };
    if (event.key in moves) moveTo(step(options, current, moves[event.key] ?? 1));
    else if (event.key === "Home") moveTo(step(options, -1, 1));
    else if (event.key === "End") moveTo(step(options, options.length, -1));
    else if (event.key === " ") {
      if (!options[current]?.disabled) onPick(current);
    } else if (event.key === "Enter") {
      // What is checked, never the option that only has focus: focus lands on an option
      // when the request appears, and a stray Enter must not answer for the person.
      props.onSubmit(selected);
    } else return;
    event.preventDefault();
  }

  return (
    <div
      ref={listRef}
      role={multiple ? "group" : "radiogroup"}
      aria-label={props.label}
      aria-describedby={props.describedBy}
      aria-invalid={(!multiple && props.invalid) || undefined}
      // One choice is what the request asks for: said before "Choose an option first." is.
      aria-required={!multiple || undefined}
      aria-disabled={disabled || undefined}
      className={`hitl-options hitl-options--${layout}`}
      onKeyDown={onKeyDown}
    >
      {options.map((option, index) => {
        const checked = selected.includes(index);
        const id = `${idBase}-${index}`;
        return (
          <div
            key={id}
            role={multiple ? "checkbox" : "radio"}
            aria-checked={checked}
            aria-disabled={disabled || option.disabled || undefined}
            aria-labelledby={`${id}-label`}
            aria-describedby={option.description ? `${id}-desc` : undefined}
            tabIndex={tabStop(index) ? 0 : -1}
            data-index={index}
            className="hitl-option"
            data-checked={checked || undefined}
            onFocus={() => setActive(index)}
            onClick={() => !disabled && !option.disabled && onPick(index)}
          >
            {props.renderVisual ? (
              <span className="hitl-option__visual" aria-hidden="true">
                {props.renderVisual(option)}
              </span>
            ) : (
              <span className="hitl-option__indicator" aria-hidden="true" />
            )}
            <span className="hitl-option__text">
              <span
                id={`${id}-label`}
                className={props.hideLabels ? "hitl-visually-hidden" : "hitl-option__label"}
                dir="auto"
              >
                {option.label}
              </span>
              {option.description ? (
                <span id={`${id}-desc`} className="hitl-option__description" dir="auto">
                  {option.description}
                </span>
              ) : null}
            </span>
          </div>
        );
      })}
    </div>
  );
}
