"use client";

import type { ApprovalAnswer } from "@hitl-kit/protocol";
import { busyButtonProps, ValueView, WidgetFrame, type WidgetProps } from "@hitl-kit/react";
import { useId, useState } from "react";
import { useKitTexts } from "./kit-texts.js";

/**
 * Props of {@link ApprovalCard}. `Answer` is for a tool that needs approval and also asks
 * (`defineTool({ approval, asks })`): its one widget's props, whose answers are either, pass
 * to the card when `request.kind` is `"approval"`.
 */
export type ApprovalCardProps<Input = unknown, Answer = ApprovalAnswer> = WidgetProps<
  Input,
  Answer | ApprovalAnswer
> & {
  /** The approve button's text; the widget texts' `approve` ("Approve") by default. */
  approveLabel?: string;
  /** The deny button's text; the widget texts' `deny` ("Deny") by default. */
  denyLabel?: string;
  className?: string;
};

/**
 * Approve or deny a tool call, with an optional reason. Shows the tool, the prompt and
 * the call's input (a list of values; nested values as formatted JSON). Approving calls
 * `respond({})` or `respond({ reason })`; denying calls `decline(reason)`.
 * @example
 * widgets.add("refund_charge", ApprovalCard);
 */
export function ApprovalCard<Input = unknown, Answer = ApprovalAnswer>(props: ApprovalCardProps<Input, Answer>) {
  const { request, status, respond, decline } = props;
  const busy = status === "submitting";
  const id = useId();
  const texts = useKitTexts();
  const [reason, setReason] = useState("");
  const trimmed = reason.trim();
  const given = (props.resolution?.value as ApprovalAnswer | undefined)?.reason;
  return (
    <WidgetFrame
      {...props}
      title={request.prompt ?? texts.allow}
      labels={{ resolved: texts.approved, declined: texts.denied }}
      autoFocus="frame"
      unsent={reason}
      className={["hitl-approval-card", props.className].filter(Boolean).join(" ")}
      summary={
        <>
          <ValueView value={request.input} />
          {given ? (
            <p className="hitl-quote" dir="auto">
              {texts.quote(given)}
            </p>
          ) : null}
        </>
      }
    >
      <ValueView value={request.input} />
      <div className="hitl-field hitl-field--text">
        <label className="hitl-field__label" htmlFor={`${id}-reason`}>
          {texts.reason} <span className="hitl-muted">{texts.optional}</span>
        </label>
        <textarea
          id={`${id}-reason`}
          className="hitl-textarea"
          rows={2}
          maxLength={10_000}
          value={reason}
          readOnly={busy}
          aria-disabled={busy || undefined}
          onChange={(event) => setReason(event.currentTarget.value)}
        />
      </div>
      <div className="hitl-actions">
        <button
          type="button"
          className="hitl-button hitl-button--primary"
          {...busyButtonProps(busy, () => respond(trimmed ? { reason: trimmed } : {}))}
        >
          {busy ? texts.sending : (props.approveLabel ?? texts.approve)}
        </button>
        <button
          type="button"
          className="hitl-button hitl-button--danger"
          {...busyButtonProps(busy, () => decline(trimmed || undefined))}
        >
          {props.denyLabel ?? texts.deny}
        </button>
      </div>
    </WidgetFrame>
  );
}
