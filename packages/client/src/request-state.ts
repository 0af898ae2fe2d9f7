import type { InputRequest, ResolutionAction, ValidationIssue } from "@hitl-kit/protocol";

/**
 * Where one parked request is, as the person sees it: open (`pending`), answer in flight
 * (`submitting`), refused with an error and open again (`error`), or settled one way.
 */
export type RequestStatus = "pending" | "submitting" | "resolved" | "declined" | "cancelled" | "expired" | "error";

/** Why the last answer to a request was refused; the request stays open. */
export interface RequestError {
  /** The wire error code (`invalid_answer`, `network`, …). */
  code: string;
  message: string;
  /** Per-field issues, from the client's own check or the server's 422. */
  issues?: ValidationIssue[];
}

/** How a request was settled. */
export interface RequestResolution<Answer = unknown> {
  action: ResolutionAction;
  value?: Answer;
  reason?: string;
}

/** A request with its input typed. */
export type TypedInputRequest<Input = unknown> = Omit<InputRequest, "input"> & { input: Input };

/** One request and its state, as the client tracks it. */
export interface RequestState<Input = unknown, Answer = unknown> {
  request: TypedInputRequest<Input>;
  status: RequestStatus;
  /** Set when `status` is `error`. */
  error?: RequestError;
  /** Set once the request is settled. */
  resolution?: RequestResolution<Answer>;
}
