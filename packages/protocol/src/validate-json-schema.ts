import { type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import type { JsonSchema, ValidationIssue, ValidationResult } from "./schema.js";

const validators = new WeakMap<object, Validator>();

/** Keywords whose errors only summarise the deeper errors that follow them. */
const summaryKeywords = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalProperties",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
  "allOf",
  "$ref",
]);

/**
 * Validates a value against a plain JSON Schema, synchronously (drafts 4, 7, 2019-09 and
 * 2020-12, picked from `$schema`; 2020-12 when it is absent). Runs in browsers and on
 * servers alike, with no code generation. Issues point at the deepest failing part.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): ValidationResult<unknown> {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, draftOf(schema), false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  if (result.valid) return { ok: true, value };
  return { ok: false, issues: toIssues(result.errors) };
}

function draftOf(schema: JsonSchema): SchemaDraft {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

function toIssues(errors: OutputUnit[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (summaryKeywords.has(error.keyword)) continue;
    const issue = toIssue(error);
    const key = `${issue.path.join("\u0000")}\u0001${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: OutputUnit): ValidationIssue {
  const path = parsePointer(error.instanceLocation);
  if (error.keyword === "required") {
    const missing = /"(.*)"/.exec(error.error)?.[1];
    return { path: missing === undefined ? path : [...path, missing], message: "Required" };
  }
  if (error.keyword === "false") return { path, message: "Unexpected property" };
  return { path, message: error.error };
}

function parsePointer(location: string): (string | number)[] {
  const pointer = location.startsWith("#") ? location.slice(1) : location;
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      const key = decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
      return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
    });
}
