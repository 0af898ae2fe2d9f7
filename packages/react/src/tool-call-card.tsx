import { labelOf } from "./schema-form/schema-node.js";
import { ValueView } from "./schema-form/value-view.js";
import type { ToolCallProps } from "./widget-registry.js";

const stateLabels = {
  running: "Running…",
  done: "Done",
  error: "Failed",
  declined: "Declined",
  cancelled: "Cancelled",
  expired: "Expired",
} as const;

/**
 * The default renderer of a tool call that does not park: the tool's name and its state
 * in the summary (`data-state`: `running`, `done` or `failed`; `data-outcome` says why a
 * call failed), the input and, once finished, the output on demand. The state is a live
 * region, so a screen reader hears the call finish.
 * @example
 * <ToolCallCard toolCallId="call_1" toolName="search_web" input={{ query: "posters" }} state="running" />
 */
export function ToolCallCard(props: ToolCallProps & { className?: string }) {
  const label = props.state === "failed" ? stateLabels[props.outcome] : stateLabels[props.state];
  return (
    <details
      className={["hitl-tool-call", props.className].filter(Boolean).join(" ")}
      data-state={props.state}
      data-tool={props.toolName}
      {...(props.outcome === undefined ? {} : { "data-outcome": props.outcome })}
      aria-busy={props.state === "running" || undefined}
    >
      <summary className="hitl-tool-call__summary">
        <span className="hitl-tool-call__icon" aria-hidden="true" />
        <span className="hitl-tool-call__name">{labelOf({}, props.toolName)}</span>
        <span className="hitl-tool-call__state" role="status">
          {label}
        </span>
      </summary>
      <div className="hitl-tool-call__body">
        <p className="hitl-tool-call__heading">Input</p>
        <ValueView value={props.input} />
        {props.state === "running" ? null : (
          <>
            <p className="hitl-tool-call__heading">{props.state === "done" ? "Result" : "What happened"}</p>
            <ValueView value={props.output} />
          </>
        )}
      </div>
    </details>
  );
}
