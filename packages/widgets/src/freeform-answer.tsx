"use client";

import { busyButtonProps, WidgetFrame, type WidgetProps } from "@hitl-kit/react";
import { type FormEvent, type KeyboardEvent, useId, useRef, useState } from "react";
import { useKitTexts } from "./kit-texts.js";
import { useSendKeys } from "./send-keys.js";

type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/**
 * `Answer` when {@link FreeformAnswer} can make it from the text alone, else `never`: any
 * string, or an object with at most one required property, which takes any string (the text
 * goes there). For another answer (`{ seat, cabin }`) the widget needs `toAnswer`, so a
 * registry refuses it bare.
 */
export type FreeTextAnswer<Answer> = [Answer] extends [never]
  ? unknown // an untyped registry's
  : unknown extends Answer
    ? Answer
    : [Answer] extends [string]
      ? string extends Answer
        ? Answer
        : never
      : Answer extends object
        ? [RequiredKeys<Answer>] extends [never]
          ? Answer
          : IsUnion<RequiredKeys<Answer>> extends true
            ? never
            : string extends Answer[RequiredKeys<Answer>]
              ? Answer
              : never
        : never;

/** Props of {@link FreeformAnswer}. */
export type FreeformAnswerProps<Input = unknown, Answer = unknown> = WidgetProps<Input, Answer> & {
  /** Turns the text into the answer; by default `{ [key]: text }` for the schema's string property (`answer`), or the text itself. */
  toAnswer?: (text: string) => Answer;
  /** The text box's label; the widget texts' `yourAnswer` ("Your answer") by default. */
  label?: string;
  placeholder?: string;
  submitLabel?: string;
  className?: string;
};

type Schema = Record<string, unknown>;

/**
 * The string schema an answer's text goes into, and under which key (none for a string
 * root): `answer`, else the required string property, else the first string property.
 */
export function textTarget(schema: Schema): { key?: string; schema: Schema } {
  if (schema.type === "string") return { schema };
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const strings = Object.keys(props).filter((k) => props[k]?.type === "string");
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const key = "answer" in props ? "answer" : (strings.find((k) => required.includes(k)) ?? strings[0]);
  return key ? { key, schema: props[key] ?? {} } : { key: "answer", schema: {} };
}

/**
 * A free-text answer, with the length limits of the answer schema and a character count.
 * Ctrl+Enter (⌘+Enter) or the button sends it (the count names the shortcut where a keyboard
 * is likely: a fine pointer; ⌘+Enter on Apple's platforms); text that is too short is not sent: the
 * error is announced and focus goes back to the text box.
 * @example
 * widgets.add("ask_question", FreeformAnswer);
 */
export function FreeformAnswer<Input = unknown, Answer = unknown>(
  props: FreeformAnswerProps<Input, Answer> &
    // An answer the text alone cannot make needs `toAnswer`.
    ([FreeTextAnswer<Answer>] extends [never] ? { toAnswer: (text: string) => Answer } : unknown),
) {
  const { status, request } = props;
  const busy = status === "submitting";
  const id = useId();
  const texts = useKitTexts();
  const [text, setText] = useState("");
  const keys = useSendKeys();
  const [message, setMessage] = useState<string>();
  const boxRef = useRef<HTMLTextAreaElement>(null);
  const target = textTarget(request.answerSchema);
  const min = typeof target.schema.minLength === "number" ? target.schema.minLength : 1;
  const max = typeof target.schema.maxLength === "number" ? target.schema.maxLength : undefined;

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (busy) return;
    const value = text.trim();
    const length = characters(value);
    if (length < min || (max !== undefined && length > max)) {
      setMessage(
        length > (max ?? length) ? texts.atMost(max ?? length) : min <= 1 ? texts.writeFirst : texts.atLeast(min),
      );
      boxRef.current?.focus();
      return;
    }
    const answer = props.toAnswer ? props.toAnswer(value) : target.key ? { [target.key]: value } : value;
    props.respond(answer as Answer);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || isComposing(event)) return;
    submit(event);
  }

  const value = props.resolution?.value as unknown;
  const shown = typeof value === "string" ? value : target.key ? (value as Schema | undefined)?.[target.key] : value;
  const describedBy = [`${id}-count`, message ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <WidgetFrame
      {...props}
      className={["hitl-freeform-answer", props.className].filter(Boolean).join(" ")}
      unsent={text}
      summary={
        <p className="hitl-quote" dir="auto">
          {String(shown ?? "")}
        </p>
      }
    >
      <form className="hitl-form" noValidate onSubmit={submit}>
        <div className="hitl-field hitl-field--text" data-invalid={message ? true : undefined}>
          <label className="hitl-field__label" htmlFor={`${id}-text`}>
            {props.label ?? texts.yourAnswer}
          </label>
          <textarea
            ref={boxRef}
            id={`${id}-text`}
            className="hitl-textarea"
            dir="auto"
            rows={3}
            value={text}
            placeholder={props.placeholder}
            readOnly={busy}
            aria-disabled={busy || undefined}
            required
            aria-invalid={message ? true : undefined}
            aria-describedby={describedBy}
            onChange={(event) => {
              setText(event.currentTarget.value);
              setMessage(undefined);
            }}
            onKeyDown={onKeyDown}
          />
          <p className="hitl-field__help hitl-counter" id={`${id}-count`}>
            {texts.count(characters(text), max)}
            {/* The minimum said before the person sends, not first by the refusal. */}
            {min > 1 ? ` · ${texts.atLeast(min)}` : null}
            {keys ? ` · ${keys === "meta" ? texts.sendKeysApple : texts.sendKeys}` : null}
          </p>
          {message ? (
            <p className="hitl-field__error" id={`${id}-error`} role="alert">
              {message}
            </p>
          ) : null}
        </div>
        <div className="hitl-actions">
          <button type="submit" className="hitl-button hitl-button--primary" {...busyButtonProps(busy)}>
            {busy ? texts.sending : (props.submitLabel ?? texts.send)}
          </button>
          <button type="button" className="hitl-button" {...busyButtonProps(busy, () => props.decline())}>
            {texts.decline}
          </button>
        </div>
      </form>
    </WidgetFrame>
  );
}

/** How many characters a JSON Schema's `minLength` and `maxLength` count in `text`: code points, so an emoji is one, not two. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** The Enter that confirms an input method's composition (Japanese, Chinese, Korean…), which must not send: Safari marks it by key code 229 only. */
function isComposing(event: KeyboardEvent): boolean {
  return event.nativeEvent.isComposing || event.keyCode === 229;
}
