"use client";

import { useWidgetTexts } from "../use-widget-texts.js";
import type { WidgetProps } from "../widget-props.js";
import { busyButtonProps } from "./busy-button-props.js";
import { SchemaForm } from "./schema-form.js";
import { ValueView } from "./value-view.js";
import { WidgetFrame } from "./widget-frame.js";

/**
 * The widget for a request no widget is registered for: the prompt, a form built from the
 * request's answer schema (or a JSON editor when the schema is beyond a form), Decline (no)
 * and Skip (no answer: the tool's result is `cancelled`). An approval also shows the call's
 * input, and says Approve and Deny. Its words
 * come from the widget texts (`useWidgetTexts`).
 * @example
 * <FallbackWidget {...widgetProps} />
 */
export function FallbackWidget(props: WidgetProps & { className?: string }) {
  const { request, status, respond, decline, cancel, error } = props;
  const busy = status === "submitting";
  const approval = request.kind === "approval";
  const texts = useWidgetTexts();
  return (
    <WidgetFrame
      {...props}
      className={["hitl-fallback", props.className].filter(Boolean).join(" ")}
      labels={approval ? { resolved: texts.approved, declined: texts.denied } : undefined}
      // An approval's answer has no value: what was approved says more than "Nothing". An
      // answer is labelled as its form was.
      summary={
        approval ? (
          <ValueView value={request.input} />
        ) : (
          <ValueView value={props.resolution?.value} schema={request.answerSchema} />
        )
      }
      showIssues={false}
    >
      {approval ? <ValueView value={request.input} /> : null}
      <SchemaForm
        schema={request.answerSchema}
        onSubmit={respond}
        issues={status === "error" ? error?.issues : undefined}
        disabled={busy}
        submitLabel={busy ? texts.sending : approval ? texts.approve : texts.submit}
      >
        <button type="button" className="hitl-button" {...busyButtonProps(busy, () => decline())}>
          {approval ? texts.deny : texts.decline}
        </button>
        <button type="button" className="hitl-button hitl-button--quiet" {...busyButtonProps(busy, cancel)}>
          {texts.cancel}
        </button>
      </SchemaForm>
    </WidgetFrame>
  );
}
