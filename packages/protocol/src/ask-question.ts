import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { type ClientToolDefinition, defineClientTool } from "./define-tool.js";
import {
  type Infer,
  isStandardSchema,
  type JsonSchema,
  jsonSchema,
  type SchemaLike,
  type TypedJsonSchema,
  toJsonSchema,
  type ValidationIssue,
  validate,
} from "./schema.js";
import { validateJsonSchema } from "./validate-json-schema.js";

/** What the model asks with the built-in question tool. */
export interface QuestionInput {
  /** The question, in one or two sentences. */
  question: string;
  /** Answers the person can pick from; absent for a free-text answer. */
  choices?: string[];
}

/** What the person answers to the built-in question tool. */
export interface QuestionAnswer {
  /** The person's answer, 1 to 10,000 characters: usually one of the `choices` (the schema does not check it), else free text. */
  answer: string;
}

const questionSchema = {
  type: "object",
  properties: {
    question: {
      type: "string",
      minLength: 1,
      description: "The question to ask the person, in one or two sentences.",
    },
    choices: {
      type: "array",
      items: { type: "string", minLength: 1 },
      maxItems: 20,
      description: "Answers the person can pick from; omit for a free-text answer.",
    },
  },
  required: ["question"],
} as const;

const answerSchema = jsonSchema<QuestionAnswer>({
  type: "object",
  properties: { answer: { type: "string", minLength: 1, maxLength: 10_000 } },
  required: ["answer"],
  additionalProperties: false,
});

/**
 * The input an `askQuestion` tool receives: the {@link QuestionInput} fields and those of
 * its extra `inputSchema`, as one object type.
 * @typeParam Extra - The schema passed as `inputSchema`.
 * @typeParam Input - Leave it at its default; it only names the intersection the object type is built from.
 */
export type QuestionInputOf<Extra extends SchemaLike, Input = QuestionInput & Infer<Extra>> = {
  [K in keyof Input]: Input[K];
} & {};

/** The input schema of `askQuestion`: the built-in fields and any extra ones, typed. */
export type QuestionInputSchema<Input> = StandardSchemaV1<unknown, Input> & StandardJSONSchemaV1<unknown, Input>;

/**
 * The built-in question tool (`ask_question`): the model asks the person a question,
 * optionally with choices, and gets `{ answer }` back. Pass an `inputSchema` — an object
 * schema in zod, any Standard Schema with a JSON Schema converter, or plain JSON Schema —
 * to widen the input with extra typed fields the model fills in (they reach the widget
 * typed). It needs no schema library of its own.
 * @example
 * const ask = askQuestion({ inputSchema: z.object({ urgency: z.enum(["low", "high"]) }) });
 */
export function askQuestion<Extra extends SchemaLike = TypedJsonSchema<Record<never, never>>>(
  options: {
    /** Extra fields of the question; they may not replace `question` or `choices`. */
    inputSchema?: Extra;
    name?: string;
    description?: string;
  } = {},
): ClientToolDefinition<"ask_question", QuestionInputSchema<QuestionInputOf<Extra>>, TypedJsonSchema<QuestionAnswer>> {
  return defineClientTool({
    name: (options.name ?? "ask_question") as "ask_question",
    description:
      options.description ??
      "Ask the person a question and wait for the answer. Use it when you need a decision or a fact only they have.",
    inputSchema: questionInputSchema<QuestionInputOf<Extra>>(options.inputSchema),
    answerSchema,
    prompt: (input) => input.question,
  });
}

/** The built-in fields checked by their JSON Schema, then the extra ones by their own schema. */
function questionInputSchema<Input>(extra: SchemaLike | undefined): QuestionInputSchema<Input> {
  const merged = mergeObjectSchemas(extra === undefined ? undefined : toJsonSchema(extra));
  const check = async (value: unknown): Promise<StandardSchemaV1.Result<Input>> => {
    const own = validateJsonSchema(isStandardSchema(extra) ? questionSchema : merged, value);
    const issues: ValidationIssue[] = own.ok ? [] : own.issues;
    let output = value;
    if (isStandardSchema(extra)) {
      const result = await validate(extra, value);
      if (!result.ok) issues.push(...result.issues);
      else {
        const { question, choices } = value as QuestionInput;
        output = { ...(result.value as object), question, ...(choices === undefined ? {} : { choices }) };
      }
    }
    return issues.length > 0 ? { issues } : { value: output as Input };
  };
  return {
    "~standard": {
      version: 1,
      vendor: "hitl-kit",
      validate: check,
      jsonSchema: { input: () => merged, output: () => merged },
    },
  };
}

function mergeObjectSchemas(extra: JsonSchema | undefined): JsonSchema {
  if (!extra) return questionSchema;
  const properties = (extra.properties ?? {}) as Record<string, unknown>;
  if (extra.type !== "object") throw new TypeError("askQuestion: inputSchema must be an object schema.");
  for (const key of Object.keys(properties)) {
    if (key in questionSchema.properties) {
      throw new TypeError(`askQuestion: the input field "${key}" is built in; name yours differently.`);
    }
  }
  const { $schema: _dialect, ...rest } = extra;
  return {
    ...rest,
    type: "object",
    properties: { ...questionSchema.properties, ...properties },
    required: [...questionSchema.required, ...((extra.required as string[] | undefined) ?? [])],
  };
}
