"use client";

import { ValueView } from "./schema-form/value-view.js";
import { useWidgetTexts } from "./use-widget-texts.js";
import type { ToolCallProps } from "./widget-registry.js";
import type { ExtraWidgetTexts } from "./widget-texts.js";

const callTexts: Pick<ExtraWidgetTexts, "call"> = {
  call: {
    running: "Running…",
    done: "Done",
    failed: "Failed",
    input: "Input",
    result: "Result",
    failure: "What happened",
  },
};

/**
 * The default renderer of a tool call that does not park: the tool's name and its state
 * in the summary (`data-state`: `running`, `done` or `failed`; `data-outcome` says why a
 * call failed), the input and, once finished, the output on demand. The state is a live
 * region, so a screen reader hears the call finish. Its words are the widget texts' `call`.
 * @example
 * <ToolCallCard toolCallId="call_1" toolName="search_web" input={{ query: "posters" }} state="running" />
 */
export function ToolCallCard(props: ToolCallProps & { className?: string }) {
  const texts = useWidgetTexts(callTexts);
  const label =
    props.state !== "failed"
      ? texts.call[props.state]
      : props.outcome === "error"
        ? texts.call.failed
        : texts.status[props.outcome];
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
        <span className="hitl-tool-call__name">{texts.tool(props.toolName)}</span>
        <span className="hitl-tool-call__state" role="status">
          {label}
        </span>
      </summary>
      <div className="hitl-tool-call__body">
        <p className="hitl-tool-call__heading">{texts.call.input}</p>
        <ValueView value={props.input} />
        {props.state === "running" ? null : (
          <>
            <p className="hitl-tool-call__heading">{props.state === "done" ? texts.call.result : texts.call.failure}</p>
            <ValueView value={props.output} />
          </>
        )}
      </div>
    </details>
  );
}
