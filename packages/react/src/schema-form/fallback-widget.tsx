import type { WidgetProps } from "../widget-props.js";
import { busyButtonProps } from "./busy-button-props.js";
import { SchemaForm } from "./schema-form.js";
import { ValueView } from "./value-view.js";
import { WidgetFrame } from "./widget-frame.js";

/**
 * The widget for a request no widget is registered for: the prompt, a form built from the
 * request's answer schema (or a JSON editor when the schema is beyond a form), and Decline
 * and Cancel. An approval also shows the call's input, and says Approve and Deny.
 * @example
 * <FallbackWidget {...widgetProps} />
 */
export function FallbackWidget(props: WidgetProps & { className?: string }) {
  const { request, status, respond, decline, cancel, error } = props;
  const busy = status === "submitting";
  const approval = request.kind === "approval";
  return (
    <WidgetFrame
      {...props}
      className={["hitl-fallback", props.className].filter(Boolean).join(" ")}
      labels={approval ? { resolved: "Approved", declined: "Denied" } : undefined}
      showIssues={false}
    >
      {approval ? <ValueView value={request.input} /> : null}
      <SchemaForm
        schema={request.answerSchema}
        onSubmit={respond}
        issues={status === "error" ? error?.issues : undefined}
        disabled={busy}
        submitLabel={busy ? "Sending…" : approval ? "Approve" : "Submit"}
      >
        <button type="button" className="hitl-button" {...busyButtonProps(busy, () => decline())}>
          {approval ? "Deny" : "Decline"}
        </button>
        <button type="button" className="hitl-button hitl-button--quiet" {...busyButtonProps(busy, cancel)}>
          Cancel
        </button>
      </SchemaForm>
    </WidgetFrame>
  );
}
