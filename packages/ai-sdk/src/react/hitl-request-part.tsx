"use client";

import { type ValidationIssue, validate } from "@hitl-kit/protocol";
import { issueSummary } from "@hitl-kit/protocol/internal";
import { FallbackWidget, type WidgetProps, type WidgetRegistry } from "@hitl-kit/react";
import type { UIMessage } from "ai";
import { type ComponentType, memo, useMemo, useState } from "react";
import type { HitlRequestData } from "../request-part.js";
import { requestViewOf } from "../request-view.js";
import { answerVerbs, type ChatAnswers } from "./answer-verbs.js";

/** Why an answer was refused, as a widget in the `error` state shows it. */
type RequestError = Extract<WidgetProps, { status: "error" }>["error"];

/** Props of {@link HitlRequestPart}. */
export interface HitlRequestPartProps {
  /** The message the part is in: the request shows `submitting` once its tool part is answered. */
  message: UIMessage;
  /** The `data-hitl-request` part's data. */
  data: HitlRequestData;
  /** `useChat()`'s helpers: the widget answers through `addToolOutput` and `addToolApprovalResponse`. */
  chat: ChatAnswers;
  /** The widgets by tool; a request whose tool has none renders `fallback`. */
  widgets?: WidgetRegistry;
  /** What renders unregistered tools (default: the form built from the answer schema). */
  fallback?: ComponentType<WidgetProps>;
}

/**
 * Renders a `data-hitl-request` part of a `useChat` message with the widget registered for
 * its tool (or the fallback form), exactly as `<ParkedRequest>` does in a `useAgent` app.
 * The widget's answer is checked against the request's answer schema, then goes into the
 * chat (`addToolOutput`, `addToolApprovalResponse`), which sends it to the server.
 * @example
 * {message.parts.map((part) =>
 *   part.type === "data-hitl-request" ? (
 *     <HitlRequestPart key={part.id} message={message} data={part.data} chat={chat} widgets={widgets} />
 *   ) : null,
 * )}
 */
export const HitlRequestPart = memo(function HitlRequestPart({
  message,
  data,
  chat,
  widgets,
  fallback = FallbackWidget,
}: HitlRequestPartProps) {
  const view = requestViewOf(message, data);
  const [error, setError] = useState<RequestError>();
  const verbs = useMemo(() => answerVerbs(chat, data.request), [chat, data.request]);
  const props = useMemo(
    () => ({
      respond: (value: unknown) => {
        void validate(data.request.answerSchema, value).then((checked) => {
          if (!checked.ok) {
            setError({
              code: "invalid_answer",
              message: `The answer does not fit the answer schema of ${data.request.toolName} (${issueSummary(checked.issues)}).`,
              issues: checked.issues,
            });
            return;
          }
          setError(undefined);
          verbs.respond(checked.value);
        });
      },
      decline: verbs.decline,
      cancel: verbs.cancel,
    }),
    [data.request, verbs],
  );
  const Widget = widgets?.get(data.request.toolName) ?? fallback;
  // The server refused the answer: the transport put the request back open, saying why (or,
  // from another transport, the chat's request failed while this answer was on its way).
  const refused: RequestError | undefined =
    view.status === "pending" && data.state === "open" && data.refused
      ? data.refused
      : view.status === "submitting" && chat.status === "error" && chat.error
        ? refusalOf(chat.error)
        : undefined;
  const shown = (view.status === "pending" ? error : undefined) ?? refused;
  const state = shown ? { request: data.request, status: "error" as const, error: shown } : view;
  return <Widget {...state} {...props} />;
});

/** A refused answer as a widget's error: the wire code (`invalid_answer`, …) and, for a 422, each issue. */
function refusalOf(error: Error): RequestError {
  const { code, details } = error as { code?: unknown; details?: unknown };
  return {
    code: typeof code === "string" ? code : "error",
    message: error.message,
    ...(code === "invalid_answer" && Array.isArray(details) ? { issues: details as ValidationIssue[] } : {}),
  };
}
