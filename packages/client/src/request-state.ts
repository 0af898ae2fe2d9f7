import type {
  InputRequest,
  ReasonCode,
  ToolAnswer,
  ToolInput,
  ToolName,
  ToolSet,
  ValidationIssue,
} from "@hitl-kit/protocol";

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
  /** A human-readable description of why the answer was refused. */
  message: string;
  /** Per-field issues, from the client's own check or the server's 422. */
  issues?: ValidationIssue[];
}

/**
 * How a request was settled, by action: only an accepted request has a value (the
 * person's answer); a declined one may say why; a cancelled one may say why the server
 * cancelled it, in English (`reason`) and as a code to say it in the person's language
 * (`reasonCode`); an expired one says nothing.
 */
export type RequestResolution<Answer = unknown> =
  | { action: "accept"; value: Answer; reason?: string }
  | { action: "decline"; value?: never; reason?: string }
  | { action: "cancel"; value?: never; reason?: string; reasonCode?: ReasonCode }
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
  /** The request as the agent asked it, its input typed. */
  request: TypedInputRequest<Input, Name>;
  /** Discriminant: open, no answer sent. */
  status: "pending";
  /** No answer is in flight. */
  sent?: never;
  /** No answer was refused. */
  error?: never;
  /** Not settled. */
  resolution?: never;
}

/** An open request whose answer is on its way; `sent` is that answer. */
export interface SubmittingRequestState<Input = unknown, Answer = unknown, Name extends string = string> {
  /** The request as the agent asked it, its input typed. */
  request: TypedInputRequest<Input, Name>;
  /** Discriminant: an answer is in flight. */
  status: "submitting";
  /** The answer in flight. */
  sent: SentAnswer<Answer>;
  /** No refusal while the answer is in flight. */
  error?: never;
  /** Not settled yet. */
  resolution?: never;
}

/** An open request whose last answer was refused: `error` says why, and it can be answered again. */
export interface FailedRequestState<Input = unknown, Name extends string = string> {
  /** The request as the agent asked it, its input typed. */
  request: TypedInputRequest<Input, Name>;
  /** Discriminant: the last answer was refused; the request is open again. */
  status: "error";
  /** Why the last answer was refused. */
  error: RequestError;
  /** No answer is in flight. */
  sent?: never;
  /** Not settled. */
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

/**
 * One member of {@link SettledRequestState}: a request settled with `Status`, carrying the
 * `Resolution` of the matching action.
 */
export interface SettledMember<Input, Name extends string, Status extends string, Resolution> {
  /** The request as the agent asked it, its input typed. */
  request: TypedInputRequest<Input, Name>;
  /** Discriminant: how it settled (`resolved`, `declined`, `cancelled` or `expired`). */
  status: Status;
  /** How the request was settled. */
  resolution: Resolution;
  /** A settled request has no answer in flight. */
  sent?: never;
  /** A settled request has no refusal. */
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

/**
 * A request of the tool called `Name`: its state (as in `pending`), the request itself, or —
 * when the tool cannot be known — its id.
 */
export type RequestOf<Name extends string> =
  | { requestId: string; toolName: Name }
  | { request: { requestId: string; toolName: Name } };

/** The answer type of the tool called `Name`; `unknown` for an untyped tool set. */
export type AnswerTo<Tools extends ToolSet, Name extends ToolName<Tools>> =
  string extends ToolName<Tools> ? unknown : ToolAnswer<Tools, Name>;

/** Whether a request can still be answered: open, or open again after a refused answer. */
export function isOpen<State extends RequestState<unknown, unknown>>(
  state: State | undefined,
): state is Extract<State, { status: "pending" | "submitting" | "error" }> {
  return state?.status === "pending" || state?.status === "submitting" || state?.status === "error";
}
