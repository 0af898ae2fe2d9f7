import type { InputRequest, ToolAnswer, ToolInput, ToolName, ToolSet, ValidationIssue } from "@hitl-kit/protocol";

/**
 * Where one parked request is, as the person sees it: open (`pending`), answer in flight
 * (`submitting`), refused with an error and open again (`error`), or settled one way.
 */
export type RequestStatus = RequestState["status"];

/** The statuses of a settled request: it has its {@link RequestResolution} and takes no more answers. */
export type SettledStatus = SettledRequestState["status"];

/** Why the last answer to a request was refused; the request stays open. */
export interface RequestError {
  /** The wire error code (`invalid_answer`, `network`, …). */
  code: string;
  message: string;
  /** Per-field issues, from the client's own check or the server's 422. */
  issues?: ValidationIssue[];
}

/**
 * How a request was settled, by action: only an accepted request has a value (the
 * person's answer); a declined one may say why; a cancelled or expired one has neither.
 */
export type RequestResolution<Answer = unknown> =
  | { action: "accept"; value: Answer; reason?: string }
  | { action: "decline"; value?: never; reason?: string }
  | { action: "cancel"; value?: never; reason?: string }
  | { action: "expire"; value?: never; reason?: string };

/**
 * The answer in flight while a request is `submitting`: the value sent, or the decline
 * (with its reason) or cancel.
 */
export type SentAnswer<Answer = unknown> =
  | { action: "accept"; value: Answer; reason?: never }
  | { action: "decline"; value?: never; reason?: string }
  | { action: "cancel"; value?: never; reason?: never };

/** A request with its input (and tool name) typed. */
export type TypedInputRequest<Input = unknown, Name extends string = string> = Omit<
  InputRequest,
  "input" | "toolName"
> & { toolName: Name; input: Input };

/** An open request nobody answered yet. */
export interface PendingRequestState<Input = unknown, Name extends string = string> {
  request: TypedInputRequest<Input, Name>;
  status: "pending";
  sent?: never;
  error?: never;
  resolution?: never;
}

/** An open request whose answer is on its way; `sent` is that answer. */
export interface SubmittingRequestState<Input = unknown, Answer = unknown, Name extends string = string> {
  request: TypedInputRequest<Input, Name>;
  status: "submitting";
  /** The answer in flight. */
  sent: SentAnswer<Answer>;
  error?: never;
  resolution?: never;
}

/** An open request whose last answer was refused: `error` says why, and it can be answered again. */
export interface FailedRequestState<Input = unknown, Name extends string = string> {
  request: TypedInputRequest<Input, Name>;
  status: "error";
  /** Why the last answer was refused. */
  error: RequestError;
  sent?: never;
  resolution?: never;
}

/**
 * A settled request: `resolved` (accepted, with the answer), `declined`, `cancelled` or
 * `expired`, each with its {@link RequestResolution}.
 */
export type SettledRequestState<Input = unknown, Answer = unknown, Name extends string = string> =
  | SettledMember<Input, Name, "resolved", Extract<RequestResolution<Answer>, { action: "accept" }>>
  | SettledMember<Input, Name, "declined", Extract<RequestResolution<Answer>, { action: "decline" }>>
  | SettledMember<Input, Name, "cancelled", Extract<RequestResolution<Answer>, { action: "cancel" }>>
  | SettledMember<Input, Name, "expired", Extract<RequestResolution<Answer>, { action: "expire" }>>;

interface SettledMember<Input, Name extends string, Status extends string, Resolution> {
  request: TypedInputRequest<Input, Name>;
  status: Status;
  /** How the request was settled. */
  resolution: Resolution;
  sent?: never;
  error?: never;
}

/**
 * One request and its state, as the client tracks it: a union on `status`, so each state
 * carries exactly its fields. Narrow on `status` before reading `sent`, `error` or
 * `resolution`.
 * @example
 * if (state.status === "resolved") show(state.resolution.value);
 * else if (state.status === "error") warn(state.error.message);
 */
export type RequestState<Input = unknown, Answer = unknown, Name extends string = string> =
  | PendingRequestState<Input, Name>
  | SubmittingRequestState<Input, Answer, Name>
  | FailedRequestState<Input, Name>
  | SettledRequestState<Input, Answer, Name>;

/**
 * The state of a request to any tool of `Tools`: a union over the tools, so narrowing on
 * `request.toolName` types the input and the answer. For an untyped tool set (`ToolSet`)
 * it is a plain {@link RequestState}.
 * @example
 * declare const state: RequestStateOf<typeof tools>;
 * if (state.request.toolName === "pick_template") state.request.input.templates;
 */
export type RequestStateOf<Tools extends ToolSet> =
  string extends ToolName<Tools>
    ? RequestState
    : {
        [Name in ToolName<Tools>]: RequestState<ToolInput<Tools, Name>, ToolAnswer<Tools, Name>, Name>;
      }[ToolName<Tools>];

/** Whether a request can still be answered: open, or open again after a refused answer. */
export function isOpen<State extends RequestState<unknown, unknown>>(
  state: State | undefined,
): state is Extract<State, { status: "pending" | "submitting" | "error" }> {
  return state?.status === "pending" || state?.status === "submitting" || state?.status === "error";
}
