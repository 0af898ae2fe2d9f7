import { type Check, createCheck } from "./json-schema/check-value.js";
import type { JsonSchema, ValidationIssue, ValidationResult } from "./schema.js";

const compiled = new WeakMap<JsonSchema, Check>();

/** The most issues a validation reports; past it, one more line counts the rest. */
const MAX_ISSUES = 50;

/**
 * Validates a value against a plain JSON Schema, synchronously, in browsers and on
 * servers alike, with no code generation. The browser checks answers with it before they
 * are sent (and the fallback form as the person types); the server checks the model's
 * input and the person's answers with it whenever a tool's schema is plain JSON Schema,
 * so both sides accept and refuse the same values.
 *
 * It checks the validation and applicator keywords of drafts 2020-12 and 07: `type` (one
 * or a list, `integer` included), `const`, `enum`, `properties`, `required`,
 * `additionalProperties`, `patternProperties`, `propertyNames`, `minProperties`/
 * `maxProperties`, `dependentRequired`, `dependentSchemas`, `dependencies` (draft-07),
 * `unevaluatedProperties`, `items`, `prefixItems`, `additionalItems`, `contains` with
 * `minContains`/`maxContains`, `minItems`/`maxItems`, `uniqueItems`, `unevaluatedItems`,
 * `minimum`/`maximum`, `exclusiveMinimum`/`exclusiveMaximum` (numbers, or draft-04
 * booleans), `multipleOf` (in decimal: 0.3 is a multiple of 0.1), `minLength`/`maxLength`
 * (in code points), `pattern` (Unicode mode), `format` (email, uri/url, date, time,
 * date-time, uuid, ipv4, hostname, duration), `allOf`/`anyOf`/`oneOf`/`not`,
 * `if`/`then`/`else`, and `$ref`s within the document (`#`, `#/$defs/…`,
 * `#/definitions/…`). What it cannot check — dynamic and recursive references,
 * `$anchor`, a nested `$id`, a remote `$ref`, an unknown `format` without a `pattern`, an
 * invalid `pattern` — is refused when a tool is defined (see `findUnsupportedKeyword`);
 * called directly, it checks nothing for those. Keywords JSON Schema does not define are
 * annotations and pass.
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
  // A value with thousands of bad items says so in a few lines, not thousands.
  if (issues.length <= MAX_ISSUES) return { ok: false, issues };
  const more = { path: [], message: `…and ${issues.length - MAX_ISSUES} more issues.` };
  return { ok: false, issues: [...issues.slice(0, MAX_ISSUES), more] };
}
