import { type ApprovalOption, type ApprovalPolicy, toApprovalPolicy } from "./approval.js";
import { assertCheckableTool } from "./checkable-tool.js";
import { type Infer, type InferInput, jsonSchema, type SchemaLike } from "./schema.js";

/** What the person answers to an approval: optionally, a note for the tool or the model. */
export interface ApprovalAnswer {
  /** A note for the tool or the model (up to 10,000 characters); absent when the person wrote none. */
  reason?: string;
}

/** The JSON Schema of an {@link ApprovalAnswer}. */
export const approvalAnswerSchema = jsonSchema<ApprovalAnswer>({
  type: "object",
  properties: { reason: { type: "string", maxLength: 10_000 } },
  additionalProperties: false,
});

/** A question for the person, shown by widgets: a fixed string or built from the call's input. */
export type PromptOption<Input> = string | ((input: Input) => string);

/** A tool executed on the server, optionally gated by an approval policy. */
export interface ServerToolDefinition<Name extends string = string, InputSchema extends SchemaLike = SchemaLike> {
  /** Runs on the server (attach its executor with `implement`). */
  readonly kind: "server";
  /** The name the model calls it by. */
  readonly name: Name;
  /** What the model is told the tool does. */
  readonly description: string;
  /** The schema of the call's input, given to the model. */
  readonly inputSchema: InputSchema;
  /** When a call waits for a person's approval. */
  readonly approval: ApprovalPolicy<Infer<InputSchema>>;
  /** The question shown with an approval request. */
  readonly prompt?: PromptOption<Infer<InputSchema>>;
  /**
   * The schema of the answers to the questions the tool asks while it runs (`ctx.ask`),
   * declared for typed widgets: the tool's widget and `respond` take `ApprovalAnswer` or
   * such an answer. `{}` (any answer) for questions that vary, as an MCP server's do.
   */
  readonly asks?: SchemaLike;
}

/** A server tool that declares the answers to its questions (`defineTool({ asks })`). */
export type AskingTool<Asks extends SchemaLike> = { readonly asks: Asks };

/** A tool the person resolves in the browser: it has no executor, only an answer schema. */
export interface ClientToolDefinition<
  Name extends string = string,
  InputSchema extends SchemaLike = SchemaLike,
  AnswerSchema extends SchemaLike = SchemaLike,
> {
  /** Answered by a person in the browser. */
  readonly kind: "client";
  /** The name the model calls it by. */
  readonly name: Name;
  /** What the model is told the tool does. */
  readonly description: string;
  /** The schema of the call's input, given to the model and shown to the widget. */
  readonly inputSchema: InputSchema;
  /** The schema of the person's answer, checked in the browser and again on the server. */
  readonly answerSchema: AnswerSchema;
  /** The question shown with the request. */
  readonly prompt?: PromptOption<Infer<InputSchema>>;
}

/** Any tool definition. */
// biome-ignore lint/suspicious/noExplicitAny: the widest tool type must accept every schema type
export type AnyToolDefinition = ServerToolDefinition<string, any> | ClientToolDefinition<string, any, any>;

/** The type a tool's call input has after validation. */
export type ToolInputOf<T extends AnyToolDefinition> = Infer<T["inputSchema"]>;

/**
 * The type of the person's answer, as the browser sends it: the answer schema's for a client
 * tool; for a server tool, {@link ApprovalAnswer}, or the answer to one of its questions when
 * it declares them (`asks`). It is the schema's input type ({@link InferInput}): a schema that
 * transforms takes the answer as given, and its output reaches the tool.
 */
export type ToolAnswerOf<T extends AnyToolDefinition> =
  T extends ClientToolDefinition<string, SchemaLike, infer A>
    ? InferInput<A>
    : T extends AskingTool<infer S>
      ? ApprovalAnswer | InferInput<S>
      : ApprovalAnswer;

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

function checkName(name: string): void {
  if (!toolName.test(name)) {
    throw new TypeError(
      `Tool name "${name}" is not accepted by model providers: use 1 to 64 letters, digits, "_" or "-".`,
    );
  }
}

/**
 * Defines a tool the server executes. Attach its executor on the server with `implement`;
 * this module stays free of server code so the browser can import it too.
 * @example
 * export const refund = defineTool({
 *   name: "refund_charge",
 *   description: "Refund a charge.",
 *   inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
 *   approval: ({ input }) => input.amount > 1000,
 * });
 */
export function defineTool<
  const Name extends string,
  InputSchema extends SchemaLike,
  Asks extends SchemaLike | undefined = undefined,
>(definition: {
  name: Name;
  description: string;
  inputSchema: InputSchema;
  /** When a call waits for the person's approval; `never()` when omitted. */
  approval?: ApprovalOption<Infer<InputSchema>>;
  /** The question shown with an approval request. */
  prompt?: PromptOption<Infer<InputSchema>>;
  /** The schema of the answers to the questions the tool asks (`ctx.ask`), for typed widgets. */
  asks?: Asks;
}): ServerToolDefinition<Name, InputSchema> & (Asks extends SchemaLike ? AskingTool<Asks> : unknown) {
  checkName(definition.name);
  const tool: ServerToolDefinition<Name, InputSchema> = {
    kind: "server",
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    approval: toApprovalPolicy(definition.approval),
    ...(definition.prompt === undefined ? {} : { prompt: definition.prompt }),
    ...(definition.asks === undefined ? {} : { asks: definition.asks }),
  };
  assertCheckableTool(tool);
  return tool as ServerToolDefinition<Name, InputSchema> & (Asks extends SchemaLike ? AskingTool<Asks> : unknown);
}

/**
 * Defines a tool the person resolves: every call parks until a widget answers with a
 * value that satisfies `answerSchema`. The answer schema is converted to JSON Schema here
 * (the browser checks answers against it), and a keyword the browser's validator could not
 * check as the server does is refused at once (see `findUnsupportedKeyword`).
 * @throws {TypeError} naming the keyword and where it is, or why the schema cannot become JSON Schema
 * @example
 * export const pickTemplate = defineClientTool({
 *   name: "pick_template",
 *   description: "Ask the person to choose a poster template.",
 *   inputSchema: z.object({ templates: z.array(Template) }),
 *   answerSchema: z.object({ templateId: z.string() }),
 * });
 */
export function defineClientTool<
  const Name extends string,
  InputSchema extends SchemaLike,
  AnswerSchema extends SchemaLike,
>(definition: {
  name: Name;
  description: string;
  inputSchema: InputSchema;
  answerSchema: AnswerSchema;
  /** The question shown with the request. */
  prompt?: PromptOption<Infer<InputSchema>>;
}): ClientToolDefinition<Name, InputSchema, AnswerSchema> {
  checkName(definition.name);
  const tool: ClientToolDefinition<Name, InputSchema, AnswerSchema> = {
    kind: "client",
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    answerSchema: definition.answerSchema,
    ...(definition.prompt === undefined ? {} : { prompt: definition.prompt }),
  };
  assertCheckableTool(tool);
  return tool;
}

/** Whether calls of this tool may park for a person. */
export function canPark(tool: AnyToolDefinition): boolean {
  return tool.kind === "client" || tool.approval.mode !== "never";
}

/** The prompt of a call, from the tool's `prompt` option; `undefined` when it has none or it throws. */
export function promptFor(tool: AnyToolDefinition, input: unknown): string | undefined {
  if (typeof tool.prompt === "string") return tool.prompt;
  if (typeof tool.prompt !== "function") return undefined;
  try {
    return tool.prompt(input);
  } catch {
    return undefined;
  }
}
