import type { ToolPart } from "@hitl-kit/protocol";
import { ValueView } from "@hitl-kit/react";

const outcomeLabels: Record<string, string> = {
  ok: "Done",
  error: "Failed",
  declined: "Declined",
  cancelled: "Cancelled",
  expired: "Expired",
};

/**
 * A tool call that needed no person (a server tool run at once): its name, its state
 * (`data-state`: `running`, or the outcome once done) and its result on demand.
 * @example
 * <ToolActivity part={part} />
 */
export function ToolActivity({ part }: { part: ToolPart }) {
  const state = part.state === "done" ? part.outcome : part.state;
  const label = part.state === "done" ? (outcomeLabels[part.outcome] ?? part.outcome) : "Running…";
  return (
    <details className="chat-tool" data-state={state} data-tool={part.toolName}>
      <summary>
        <span className="chat-tool__icon" aria-hidden="true" />
        <span className="chat-tool__name">{part.toolName}</span>
        <span className="chat-tool__state">{label}</span>
      </summary>
      <div className="chat-tool__body">
        <p className="chat-tool__heading">Input</p>
        <ValueView value={part.input} />
        {part.state === "done" ? (
          <>
            <p className="chat-tool__heading">Result</p>
            <ValueView value={part.output} />
          </>
        ) : null}
      </div>
    </details>
  );
}
