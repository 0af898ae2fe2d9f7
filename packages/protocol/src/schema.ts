import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { validateJsonSchema } from "./validate-json-schema.js";

/** A JSON Schema document, as sent to a model and to the browser. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A plain JSON Schema that carries the TypeScript type of the values it accepts.
 * At run time it is the same object; the type parameter exists only for inference.
 */
export type TypedJsonSchema<T> = JsonSchema & { readonly "~type"?: T };

/**
 * Anything hitl-kit accepts as a schema: zod, any Standard Schema (valibot, arktype, …)
 * or a plain JSON Schema object (optionally typed with {@link jsonSchema}).
 */
export type SchemaLike<T = unknown> = StandardSchemaV1<unknown, T> | TypedJsonSchema<T>;

/** The type of the values a schema accepts, after validation. Plain JSON Schema infers `unknown`. */
export type Infer<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends { readonly "~type"?: infer T }
    ? unknown extends T
      ? unknown
      : T
    : unknown;

/**
 * The type of the values a schema takes before validation: what a person's answer is on the
 * wire and in the browser. It differs from {@link Infer} only for a schema that transforms
 * (zod's `transform`, a `default`), whose output reaches the tool.
 */
export type InferInput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferInput<S> : Infer<S>;

/** One reason a value was refused, with the path to the offending part (`[]` for the root). */
export interface ValidationIssue {
  /** Property names and array indexes from the root to the offending value; `[]` for the root. */
  path: (string | number)[];
  /** What is wrong with the value. */
  message: string;
}

/** The uniform outcome of validating a value against any {@link SchemaLike}. */
export type ValidationResult<T> =
  | { ok: true; value: T; issues?: never }
  | { ok: false; value?: never; issues: ValidationIssue[] };

/**
 * Tags a plain JSON Schema with the type of the values it accepts.
 * @example
 * const answer = jsonSchema<{ ratio: "1:1" | "16:9" }>({
 *   type: "object",
 *   properties: { ratio: { enum: ["1:1", "16:9"] } },
 *   required: ["ratio"],
 * });
 */
export function jsonSchema<T = unknown>(schema: JsonSchema): TypedJsonSchema<T> {
  return schema;
}

/** Whether a schema is a Standard Schema (zod, valibot, …) rather than plain JSON Schema. */
export function isStandardSchema(schema: unknown): schema is StandardSchemaV1 {
  return typeof schema === "object" && schema !== null && "~standard" in schema;
}

const converted = new WeakMap<object, JsonSchema>();

/**
 * Converts any {@link SchemaLike} to JSON Schema (draft-07) for a model or a browser.
 * zod 4 and other Standard JSON Schema implementations convert themselves; a plain
 * JSON Schema is returned as it is.
 * @throws when a Standard Schema has no JSON Schema converter; the message names the fix.
 */
export function toJsonSchema(schema: SchemaLike): JsonSchema {
  if (!isStandardSchema(schema)) return schema;
  const cached = converted.get(schema);
  if (cached) return cached;
  const props = schema["~standard"] as Partial<StandardJSONSchemaV1.Props>;
  if (!props.jsonSchema) {
    throw new TypeError(
      `A ${schema["~standard"].vendor} schema cannot be converted to JSON Schema by itself. ` +
        "Wrap it in a Standard JSON Schema converter (for valibot: toStandardJsonSchema from " +
        "@valibot/to-json-schema) or pass a plain JSON Schema object instead.",
    );
  }
  const result = props.jsonSchema.input({ target: "draft-07" });
  converted.set(schema, result);
  return result;
}

/**
 * Validates a value against any {@link SchemaLike} with one result shape: the parsed
 * value, or every issue with its path. Standard Schemas may validate asynchronously,
 * so this always returns a promise; use {@link validateJsonSchema} for a synchronous
 * check of a plain JSON Schema.
 */
export async function validate<S extends SchemaLike>(schema: S, value: unknown): Promise<ValidationResult<Infer<S>>> {
  if (!isStandardSchema(schema)) return validateJsonSchema(schema, value) as ValidationResult<Infer<S>>;
  const result = await schema["~standard"].validate(value);
  if (!result.issues) return { ok: true, value: result.value as Infer<S> };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({
      path: (issue.path ?? []).map((segment) => pathKey(typeof segment === "object" ? segment.key : segment)),
      message: issue.message,
    })),
  };
}

function pathKey(key: PropertyKey): string | number {
  return typeof key === "symbol" ? String(key) : key;
}
