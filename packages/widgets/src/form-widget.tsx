"use client";

import type { JsonSchema } from "@hitl-kit/protocol";
import { busyButtonProps, SchemaForm, useWidgetTexts, ValueView, WidgetFrame, type WidgetProps } from "@hitl-kit/react";

/** Props of {@link FormWidget}. */
export type FormWidgetProps<Input = unknown, Answer = unknown> = WidgetProps<Input, Answer> & {
  /** The schema to build the form from; `request.answerSchema` by default. */
  schema?: JsonSchema;
  /** Values the form starts with, for example taken from the call's input. */
  defaultValue?: Partial<Answer>;
  submitLabel?: string;
  className?: string;
};

/**
 * A form built from the request's answer schema, with each issue (the form's own check
 * or the server's 422) shown next to its field. Schemas beyond a form get a JSON editor.
 * @example
 * widgets.add("book_meeting", FormWidget);
 */
export function FormWidget<Input = unknown, Answer = unknown>(props: FormWidgetProps<Input, Answer>) {
  const { request, status, error } = props;
  const busy = status === "submitting";
  const texts = useWidgetTexts();
  return (
    <WidgetFrame
      {...props}
      showIssues={false}
      className={["hitl-form-widget", props.className].filter(Boolean).join(" ")}
      summary={<ValueView value={props.resolution?.value} schema={props.schema ?? request.answerSchema} />}
    >
      <SchemaForm<Answer>
        schema={props.schema ?? request.answerSchema}
        defaultValue={props.defaultValue}
        onSubmit={props.respond}
        issues={status === "error" ? error?.issues : undefined}
        disabled={busy}
        submitLabel={busy ? texts.sending : (props.submitLabel ?? texts.submit)}
      >
        <button type="button" className="hitl-button" {...busyButtonProps(busy, () => props.decline())}>
          {texts.decline}
        </button>
      </SchemaForm>
    </WidgetFrame>
  );
}
