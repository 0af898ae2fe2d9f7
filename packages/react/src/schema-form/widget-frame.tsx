import type { RequestError, RequestResolution, RequestStatus, TypedInputRequest } from "@hitl-kit/client";
import { type ReactNode, useId, useRef } from "react";
import { labelOf } from "./schema-node.js";
import { useFocusOnAppear } from "./use-focus-on-appear.js";
import { ValueView } from "./value-view.js";

/** The words a widget shows for each status, in its badge. */
export const defaultStatusLabels: Record<RequestStatus, string> = {
  pending: "Waiting for you",
  submitting: "Sending…",
  resolved: "Answered",
  declined: "Declined",
  cancelled: "Cancelled",
  expired: "Expired",
  error: "Not sent",
};

/** Props of {@link WidgetFrame}. */
export interface WidgetFrameProps {
  request: Pick<TypedInputRequest, "toolName" | "prompt">;
  status: RequestStatus;
  error?: RequestError;
  resolution?: RequestResolution<unknown>;
  /** The question shown as the widget's title; the request's prompt by default. */
  title?: ReactNode;
  /** What a resolved widget shows; by default the answer, formatted. */
  summary?: ReactNode;
  /** Replaces some of the default status labels ("Waiting for you", "Sending…" and so on; an approval says "Approved" and "Denied"). */
  labels?: Partial<Record<RequestStatus, string>>;
  /** Lists `error.issues` under the error message; off for forms that show them per field. */
  showIssues?: boolean;
  /** Where focus goes on mount: into the first control (`"control"`), the frame itself, or nowhere. */
  autoFocus?: "control" | "frame" | false;
  className?: string;
  /** The controls, shown while the request is open (pending, submitting, error). */
  children: ReactNode;
}

function isOpen(status: RequestStatus): boolean {
  return status === "pending" || status === "submitting" || status === "error";
}

/**
 * The frame every hitl-kit widget shares: the tool and the question, a status badge,
 * the error of a refused answer, the controls while the request is open and the outcome
 * once it is settled. It sets `data-state={status}` and moves focus in when it appears.
 * Use it to build a custom widget that looks and behaves like the built-in ones.
 * @example
 * <WidgetFrame request={request} status={status} error={error} resolution={resolution}>
 *   <button onClick={() => respond({ ok: true })}>OK</button>
 * </WidgetFrame>
 */
export function WidgetFrame(props: WidgetFrameProps) {
  const { request, status, error, labels, showIssues = true, autoFocus = "control" } = props;
  const rootRef = useRef<HTMLElement>(null);
  const titleId = useId();
  const open = isOpen(status);
  const label = labels?.[status] ?? defaultStatusLabels[status];
  useFocusOnAppear(rootRef, open && autoFocus !== false);
  return (
    <section
      ref={rootRef}
      className={["hitl-widget", props.className].filter(Boolean).join(" ")}
      data-state={status}
      data-hitl-widget=""
      aria-labelledby={titleId}
      aria-busy={status === "submitting" || undefined}
      tabIndex={-1}
      {...(autoFocus === "frame" ? { "data-hitl-autofocus": "" } : {})}
    >
      <header className="hitl-widget__header">
        <span className="hitl-widget__tool">{labelOf({}, request.toolName)}</span>
        <span className="hitl-badge" role="status">
          {label}
        </span>
      </header>
      <p className="hitl-widget__title" id={titleId}>
        {props.title ?? request.prompt ?? labelOf({}, request.toolName)}
      </p>
      {status === "error" && error ? (
        <div className="hitl-alert" role="alert">
          <p>{error.message}</p>
          {showIssues && error.issues && error.issues.length > 0 ? (
            <ul className="hitl-issues">
              {error.issues.map((issue) => (
                <li key={`${issue.path.join(".")}:${issue.message}`}>
                  {issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}
                  {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {open ? <div className="hitl-widget__body">{props.children}</div> : <Outcome {...props} />}
    </section>
  );
}

function Outcome({ status, resolution, summary }: WidgetFrameProps) {
  let detail: ReactNode;
  if (status === "resolved") detail = summary ?? <ValueView value={resolution?.value} />;
  else if (status === "declined")
    detail = resolution?.reason ? (
      <p className="hitl-quote">“{resolution.reason}”</p>
    ) : (
      <p className="hitl-muted">No reason given.</p>
    );
  else if (status === "cancelled") detail = <p className="hitl-muted">The request was cancelled without an answer.</p>;
  else detail = <p className="hitl-muted">The request expired before it was answered.</p>;
  return (
    <div className="hitl-widget__outcome">
      {detail}
      {status === "resolved" && resolution?.reason ? <p className="hitl-quote">“{resolution.reason}”</p> : null}
    </div>
  );
}
