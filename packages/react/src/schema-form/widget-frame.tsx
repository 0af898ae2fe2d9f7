"use client";

import type { RequestState, RequestStatus, TypedInputRequest } from "@hitl-kit/client";
import { type ReactNode, useId, useRef, useState } from "react";
import { useWidgetTexts } from "../use-widget-texts.js";
import { ExpiryNote } from "./expiry-note.js";
import { sentenceCase } from "./schema-node.js";
import { UnsentAnswer, UnsentContext } from "./unsent-answer.js";
import { isOpenStatus, useFocusOnAppear } from "./use-focus-on-appear.js";
import { useKeepFocus } from "./use-keep-focus.js";
import { ValueView } from "./value-view.js";

/** The state fields a frame reads: `status`, and `error` or `resolution` where the status has them. */
export type WidgetFrameState = RequestState extends infer State
  ? State extends RequestState
    ? Pick<State, "status" | "error" | "resolution">
    : never
  : never;

/** Props of {@link WidgetFrame}: a request's state (spread a widget's props) and what the frame shows. */
export type WidgetFrameProps = WidgetFrameState & {
  request: Pick<TypedInputRequest, "toolName" | "prompt" | "expiresAt">;
  /** The question shown as the widget's title; the request's prompt by default. */
  title?: ReactNode;
  /** What a resolved widget shows; by default the answer, formatted. */
  summary?: ReactNode;
  /** Replaces some of the status labels (by default the `status` of the widget texts: "Waiting for you", "Sending…" and so on; an approval says "Approved" and "Denied"). */
  labels?: Partial<Record<RequestStatus, string>>;
  /** Lists `error.issues` under the error message; off for forms that show them per field. */
  showIssues?: boolean;
  /** Where focus goes on mount: into the first control (`"control"`), the frame itself, or nowhere. */
  autoFocus?: "control" | "frame" | false;
  /**
   * What the person has typed and not sent (a text box's text): if the request is cancelled
   * or expires first, the settled frame shows it read-only, to copy. A `SchemaForm` inside
   * the frame reports its own.
   */
  unsent?: string;
  className?: string;
  /** The controls, shown while the request is open (pending, submitting, error). */
  children: ReactNode;
};

/**
 * The frame every hitl-kit widget shares: the tool and the question, a status badge,
 * the error of a refused answer, the controls while the request is open and the outcome
 * once it is settled. While the request is open it shows by when to answer (`expiresAt`),
 * and says once, politely, when little time is left; text the person typed and could not
 * send (`unsent`, or a `SchemaForm`'s) stays readable once the request is cancelled or
 * expires. It sets `data-state={status}` and moves focus in when it appears;
 * when a new status takes away the control that had focus, focus goes to the frame itself
 * rather than falling to the page. It is `aria-live="off"`: inside a chat's `role="log"`
 * the log does not read the whole widget, nor each change in it (announce a new request
 * briefly yourself, by its question).
 * Use it to build a custom widget that looks and behaves like the built-in ones.
 * @example
 * <WidgetFrame {...props}>
 *   <button onClick={() => props.respond({ ok: true })}>OK</button>
 * </WidgetFrame>
 */
export function WidgetFrame(props: WidgetFrameProps) {
  const { request, status, labels, showIssues = true, autoFocus = "control" } = props;
  const rootRef = useRef<HTMLElement>(null);
  const titleId = useId();
  const open = isOpenStatus(status);
  const texts = useWidgetTexts();
  const label = labels?.[status] ?? texts.status[status];
  const [typed, setTyped] = useState("");
  useFocusOnAppear(rootRef, open && autoFocus !== false);
  const keepFocus = useKeepFocus(rootRef, status);
  return (
    <section
      ref={rootRef}
      onFocus={keepFocus.onFocus}
      onBlur={keepFocus.onBlur}
      className={["hitl-widget", props.className].filter(Boolean).join(" ")}
      data-state={status}
      data-hitl-widget=""
      // A chat's log (a live region) would read the whole widget when it arrives, and each
      // change in it; the frame keeps it out. Its status badge and alerts announce themselves.
      aria-live="off"
      aria-labelledby={titleId}
      // By when to answer, said with the request's name when focus comes in.
      aria-describedby={open && request.expiresAt ? `${titleId}e` : undefined}
      aria-busy={status === "submitting" || undefined}
      tabIndex={-1}
      {...(autoFocus === "frame" ? { "data-hitl-autofocus": "" } : {})}
    >
      {/* A div, not a header: an app's own rules for header elements stay out of the card. */}
      <div className="hitl-widget__header">
        {/* The tool's identifier is English, unless the texts name it in the person's language. */}
        <span className="hitl-widget__tool" lang={texts.tool === sentenceCase ? "en" : undefined}>
          {texts.tool(request.toolName)}
        </span>
        <span className="hitl-badge" role="status">
          {label}
        </span>
      </div>
      {/* The model's words, in whatever script: their own direction, not the page's. */}
      <p className="hitl-widget__title" id={titleId} dir="auto">
        {props.title ?? request.prompt ?? texts.tool(request.toolName)}
      </p>
      {open && request.expiresAt ? <ExpiryNote id={`${titleId}e`} expiresAt={request.expiresAt} /> : null}
      {props.status === "error" ? (
        <div className="hitl-alert" role="alert">
          {/* The server's message of a refusal with issues summarises them for developers: the person reads them below, or at their fields. */}
          <p>{props.error.issues?.length ? texts.notFit : texts.error(props.error)}</p>
          {showIssues && props.error.issues && props.error.issues.length > 0 ? (
            <ul className="hitl-issues">
              {props.error.issues.map((issue) => (
                <li key={`${issue.path.join(".")}:${issue.message}`}>
                  {issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}
                  {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {open ? (
        <UnsentContext.Provider value={setTyped}>
          <div className="hitl-widget__body">{props.children}</div>
        </UnsentContext.Provider>
      ) : (
        <Outcome {...props} unsent={props.unsent || typed} />
      )}
    </section>
  );
}

function Outcome(props: WidgetFrameProps) {
  const texts = useWidgetTexts();
  let detail: ReactNode;
  if (props.status === "resolved") detail = props.summary ?? <ValueView value={props.resolution.value} />;
  else if (props.status === "declined")
    detail = props.resolution.reason ? (
      <p className="hitl-quote" dir="auto">
        {texts.quote(props.resolution.reason)}
      </p>
    ) : (
      <p className="hitl-muted">{texts.noReason}</p>
    );
  else if (props.status === "cancelled") {
    // The reason the server gave (the person stopped the turn, the tool ran out of time…), when it
    // gave one: in the app's words for its code when the texts have them.
    const { reason, reasonCode } = props.resolution;
    const why = (reasonCode && texts.reasons[reasonCode]) || reason;
    detail = (
      <>
        <p className="hitl-muted">{texts.cancelled}</p>
        {why ? (
          <p className="hitl-muted" dir="auto">
            {why}
          </p>
        ) : null}
      </>
    );
  } else detail = <p className="hitl-muted">{texts.expired}</p>;
  const unsent = props.status === "cancelled" || props.status === "expired" ? props.unsent?.trim() : "";
  return (
    <div className="hitl-widget__outcome">
      {detail}
      {props.status === "resolved" && props.resolution.reason ? (
        <p className="hitl-quote" dir="auto">
          {texts.quote(props.resolution.reason)}
        </p>
      ) : null}
      {unsent ? <UnsentAnswer text={props.unsent ?? ""} /> : null}
    </div>
  );
}
