import type { RequestError, RequestResolution, RequestStatus, TypedInputRequest } from "@hitl-kit/client";

/**
 * The props every widget receives: the request with its typed input, its status, and the
 * verbs that answer it. A widget sets `data-state={status}` on its root.
 */
export interface WidgetProps<Input = unknown, Answer = unknown> {
  request: TypedInputRequest<Input>;
  status: RequestStatus;
  /** Answers the request; the value is checked against the request's answer schema first. */
  respond: (value: Answer) => void;
  /** Declines the request (for an approval: denies it), optionally saying why. */
  decline: (reason?: string) => void;
  /** Cancels the request: the tool call ends as cancelled. */
  cancel: () => void;
  /** Why the last answer was refused, when `status` is `error`; the widget stays answerable. */
  error?: RequestError;
  /** How the request was settled, once it is. */
  resolution?: RequestResolution<Answer>;
}
