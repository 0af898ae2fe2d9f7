import type {
  AnyToolDefinition,
  AskingTool,
  ClientToolDefinition,
  Infer,
  SchemaLike,
  ServerToolDefinition,
  ToolInputOf,
} from "@hitl-kit/protocol";

/**
 * What server-side tool code is told about the call. `Asked` is the answer type the tool
 * declares for its questions (`defineTool({ asks })`): `ask` then takes only a schema whose
 * answers are of it, so the widget typed from `asks` gets what it expects.
 */
export interface ToolContext<Asked = unknown> {
  /** The session the call belongs to. */
  sessionId: string;
  /**
   * Who the session belongs to: the principal the fetch handler's `identify` named when the
   * session was created (or `createSession({ owner })`'s), so a tool acts only for that person
   * (a refund checks the charge is theirs); `anon:…` for the anonymous cookie's, and
   * `undefined` for a session created without one.
   */
  owner?: string;
  /** The turn whose model step made the call. */
  turnId: string;
  /** The call's id, as in its `tool.called` and `tool.result` events. */
  toolCallId: string;
  /**
   * Which run of the call this is: 1, or more for a tool implemented with
   * `rerunAfterRestart` that the server running it stopped before it finished.
   */
  attempt: number;
  /** The person's approval, for a call that waited for one. */
  approval?: { approved: true; reason?: string };
  /**
   * Aborted when the turn is cancelled, and when the call runs past its time limit (the
   * tool's `timeoutMs`, else the runtime's `toolTimeoutMs`): its reason is then a
   * `ToolTimedOut`, and the call already has its `error` result, so what the tool returns
   * after is dropped.
   */
  signal: AbortSignal;
  /**
   * Asks the person while the tool runs, and waits for the answer: a request parked as
   * durably as a client tool's, shown by the same widgets (the registry entry named after
   * this tool, or the fallback form drawn from `schema`). It settles once — answered,
   * declined, cancelled or expired — and the tool goes on with what it got: a stopped turn
   * (or the call's time limit) answers it as cancelled, saying why, as `ctx.signal` aborts. If the process
   * stops meanwhile, the call ends with its one error result when the server starts again
   * (as any call that was running does) and the request is cancelled; unless the tool is
   * implemented with `rerunAfterRestart`: the question then stays open, and the tool's next
   * run gets the answers its questions had, question by question (see {@link ImplementOptions.rerunAfterRestart}).
   * When this server leaves the turn (it closes, or another instance took the turn over),
   * `ask` throws the signal's reason rather than answering cancel: the question stays open,
   * and a call that throws that reason is left to the turn's next driver.
   * @example
   * const seats = await ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number().int().min(1) }) });
   * if (seats.action !== "accept") return { booked: false };
   */
  ask<S extends SchemaLike>(question: AskOptions<S> & AnswerOfAsks<Infer<S>, Asked>): Promise<AskResult<Infer<S>>>;
}

/** Refuses (a required `never` property) a question whose answers are not of the tool's declared `asks`. */
export type AnswerOfAsks<Answer, Asked> = [Answer] extends [Asked]
  ? unknown
  : { readonly "this answer is not of the tool's declared asks": never };

/** What a running server tool asks the person: see {@link ToolContext.ask}. */
export interface AskOptions<S extends SchemaLike = SchemaLike> {
  /** The question, shown above the answer's form. */
  prompt?: string;
  /** The answer's schema: a Standard Schema (zod, valibot, …) or a JSON Schema. */
  schema: S;
  /** Milliseconds until the request expires; default: the runtime's `expireAfter` for this tool. */
  expireAfter?: number;
  /**
   * Withdraws the question when aborted (the asker gave up: a closed connection, a
   * cancelled upstream request): the request settles as cancelled, with the abort reason's
   * message as its reason when it is an `Error` or a string, and the wait resolves with that cancel.
   */
  signal?: AbortSignal;
  /**
   * Settles the question as accepted when this resolves while it is still open: the
   * answer came another way (an MCP server reporting a URL elicitation complete, a
   * webhook). The value is checked against `schema` like a person's answer; a value that
   * does not fit leaves the question open (and is logged).
   * @example
   * await ctx.ask({ prompt: "Pay at the link", schema: z.object({}), answeredElsewhere: paid.then(() => ({ value: {} })) });
   */
  answeredElsewhere?: PromiseLike<{ value: Infer<S>; reason?: string }>;
}

/** How the person settled a question: the checked answer, or why there is none. */
export type AskResult<T> =
  | { action: "accept"; value: T; reason?: string }
  | { action: "decline"; reason?: string }
  | { action: "cancel"; reason?: string }
  | { action: "expire" };

/** Runs a server tool; what it returns (JSON) is the call's one result. A throw makes an `error` result. */
export type Execute<Input, Asked = unknown> = (input: Input, context: ToolContext<Asked>) => unknown;

/** Turns a client tool's validated answer into the call's result (look up the chosen media, say). */
export type Resolve<Input, Answer> = (answer: Answer, context: ToolContext & { input: Input }) => unknown;

/** A tool definition with its server-side code attached. */
export interface ImplementedTool<T extends AnyToolDefinition = AnyToolDefinition> {
  /** The tool definition, shared with the client: name, schemas, approval policy. */
  readonly definition: T;
  /** A server tool's executor; `undefined` for a client tool. */
  readonly execute?: Execute<ToolInputOf<T>>;
  /** A client tool's step from the person's checked answer to the call's result; without it the answer is the result. */
  // biome-ignore lint/suspicious/noExplicitAny: the answer type depends on the tool kind
  readonly resolve?: Resolve<ToolInputOf<T>, any>;
  /** This tool's time limit, in place of the runtime's `toolTimeoutMs` (see {@link ImplementOptions.timeoutMs}). */
  readonly timeoutMs?: number;
  /** Whether a call the server running it stopped in is run again (see {@link ImplementOptions.rerunAfterRestart}). */
  readonly rerunAfterRestart?: boolean;
}

/** Options of a tool's server-side code, given to `implement`. */
export interface ImplementOptions {
  /**
   * The longest one call of this tool may run (its `execute` or `resolve`), in place of the
   * runtime's `toolTimeoutMs`: past it, `ctx.signal` aborts and the call gets one `error`
   * result saying it timed out, which the model sees as it goes on. What the tool returns
   * later is dropped. The time includes a wait on `ctx.ask`. `Infinity`: no limit.
   */
  timeoutMs?: number;
  /**
   * What becomes of a call when the server running it stops before it ends (a restart, a
   * deploy, an instance whose lease lapsed). By default the call gets an `error` result
   * saying it may or may not have completed, and a question it waited on is cancelled.
   * With `true`, the next server runs the tool again from its start (`ctx.attempt` is then
   * 2; a third run a crash cuts off ends the call with that error, runs a closing server
   * ended do not count), and its questions are answered from the record: the Nth `ctx.ask` of the
   * new run gets what the Nth question of the earlier run got, or waits on that question
   * when it is still open (the person's widget stays as it was). So a question survives a
   * deploy, and a tool that asks twice keeps its first answer. What the tool does before its
   * last question runs again, so it must be safe to repeat (read and ask; charge, book and
   * send after the answers, or with an idempotency key such as `ctx.toolCallId`), and it
   * must ask the same questions in the same order: a question whose schema differs from
   * the earlier run's at that place makes `ask` throw. When this server leaves the turn (it
   * closes, or another instance took it over), a call that ends by throwing gets no result
   * here: the next server runs it again.
   */
  rerunAfterRestart?: boolean;
}

/**
 * Attaches server-side code to a tool definition, where it may use secrets. A server
 * tool gets an executor; a client tool may get `{ resolve }` that turns the person's
 * answer into the result. Giving one tool both is refused when the runtime starts.
 * @example
 * implement(refund, async ({ chargeId, amount }, ctx) => payments.refund(chargeId, amount, ctx.approval?.reason));
 * implement(pickMedia, { resolve: async ({ mediaIds }) => media.lookup(mediaIds) });
 * implement(search, async ({ query }) => index.search(query), { timeoutMs: 30_000 });
 */
export function implement<const Name extends string, S extends SchemaLike, Asks extends SchemaLike>(
  tool: ServerToolDefinition<Name, S> & AskingTool<Asks>,
  execute: Execute<Infer<S>, Infer<Asks>>,
  options?: ImplementOptions,
): ImplementedTool<ServerToolDefinition<Name, S> & AskingTool<Asks>>;
export function implement<const Name extends string, S extends SchemaLike>(
  tool: ServerToolDefinition<Name, S>,
  execute: Execute<Infer<S>>,
  options?: ImplementOptions,
): ImplementedTool<ServerToolDefinition<Name, S>>;
/** Attaches a `resolve` to a client tool: it turns the person's checked answer into the call's result. */
export function implement<const Name extends string, S extends SchemaLike, A extends SchemaLike>(
  tool: ClientToolDefinition<Name, S, A>,
  handlers: { resolve: Resolve<Infer<S>, Infer<A>> } & ImplementOptions,
): ImplementedTool<ClientToolDefinition<Name, S, A>>;
export function implement(
  tool: AnyToolDefinition,
  handlers: Execute<unknown> | ({ execute?: Execute<unknown>; resolve?: Resolve<unknown, unknown> } & ImplementOptions),
  options: ImplementOptions = {},
): ImplementedTool {
  if (typeof handlers === "function") return { definition: tool, execute: handlers, ...options };
  return { definition: tool, ...handlers };
}
