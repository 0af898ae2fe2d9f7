import { type Check, createCheck } from "./json-schema/check-value.js";
import type { JsonSchema, ValidationIssue, ValidationResult } from "./schema.js";

const compiled = new WeakMap<JsonSchema, Check>();

/**
 * Validates a value against a plain JSON Schema, synchronously, in browsers and on
 * servers alike, with no code generation. It is the browser's early check (before an
 * answer is sent, and in the fallback form); the server validates every answer again
 * with the tool's real schema, and that check is the one that counts.
 *
 * Supported: `type` (one or a list, `integer` included), `const`, `enum`, `properties`,
 * `required`, `additionalProperties`, `patternProperties`, `propertyNames`,
 * `minProperties`/`maxProperties`, `items`, `prefixItems`, `additionalItems`,
 * `contains`, `minItems`/`maxItems`, `uniqueItems`, `minimum`/`maximum`,
 * `exclusiveMinimum`/`exclusiveMaximum` (numbers, or draft-04 booleans), `multipleOf`,
 * `minLength`/`maxLength` (in code points), `pattern`, `format` (email, uri/url, date,
 * time, date-time, uuid, ipv4), `anyOf`/`oneOf`/`allOf`/`not`, and local `$ref`s
 * (`#`, `#/$defs/…`, `#/definitions/…`). Every other keyword (`if`/`then`/`else`,
 * `unevaluatedProperties`, `dependentRequired`, a remote `$ref`, an unknown format) is
 * ignored, so this check may let through what the server then refuses with a 422.
 *
 * Each issue has the path of the failing part. A missing property is `Required` at the
 * property's path; a property or item a `false` schema forbids is `Unexpected property`
 * (`Unexpected item`); other messages read like `String is too short (2 < 3).`, which
 * the fallback form rewrites for people.
 * @example
 * validateJsonSchema({ type: "object", required: ["ratio"] }, {});
 * // → { ok: false, issues: [{ path: ["ratio"], message: "Required" }] }
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): ValidationResult<unknown> {
  let check = compiled.get(schema);
  if (!check) {
    check = createCheck(schema);
    compiled.set(schema, check);
  }
  const found: ValidationIssue[] = [];
  check(value, schema, [], found);
  if (found.length === 0) return { ok: true, value };
  const seen = new Set<string>();
  const issues = found.filter((issue) => {
    const key = JSON.stringify([issue.path, issue.message]);
    return !seen.has(key) && Boolean(seen.add(key));
  });
  return { ok: false, issues };
}
