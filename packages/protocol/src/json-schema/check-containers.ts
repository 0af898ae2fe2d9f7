import type { JsonSchema, ValidationIssue } from "../schema.js";
import { patternOf } from "./check-scalars.js";
import type { Check, Path } from "./check-value.js";
import { sameJson } from "./same-json.js";

const own = (object: object, key: string) => Object.hasOwn(object, key);

/**
 * Object keywords: `required`, `properties`, `patternProperties`, `additionalProperties`
 * (a schema, or `false` for "Unexpected property"), `propertyNames`, `minProperties`,
 * `maxProperties`. A key whose value is `undefined` counts as absent, as in JSON.
 */
export function checkObject(
  value: Record<string, unknown>,
  s: JsonSchema,
  path: Path,
  out: ValidationIssue[],
  check: Check,
): void {
  const keys = Object.keys(value).filter((key) => value[key] !== undefined);
  if (Array.isArray(s.required)) {
    for (const key of s.required) {
      if (!keys.includes(key)) out.push({ path: [...path, key], message: "Required" });
    }
  }
  if (typeof s.minProperties === "number" && keys.length < s.minProperties) {
    out.push({ path, message: `Instance does not have at least ${s.minProperties} properties.` });
  }
  if (typeof s.maxProperties === "number" && keys.length > s.maxProperties) {
    out.push({ path, message: `Instance has more than ${s.maxProperties} properties.` });
  }
  const properties = (s.properties ?? {}) as JsonSchema;
  const patterns = Object.entries((s.patternProperties ?? {}) as JsonSchema);
  for (const key of keys) {
    const at = [...path, key];
    if (s.propertyNames !== undefined) check(key, s.propertyNames, at, out);
    let known = own(properties, key);
    if (known) check(value[key], properties[key], at, out);
    for (const [pattern, schema] of patterns) {
      if (patternOf(pattern)?.test(key)) {
        known = true;
        check(value[key], schema, at, out);
      }
    }
    if (!known && s.additionalProperties !== undefined) check(value[key], s.additionalProperties, at, out);
  }
}

/**
 * Array keywords: `minItems`, `maxItems`, `prefixItems`, `items` (one schema, or an array
 * of schemas with `additionalItems` as draft-07 writes a tuple), `contains`, `uniqueItems`.
 */
export function checkArray(value: unknown[], s: JsonSchema, path: Path, out: ValidationIssue[], check: Check): void {
  if (typeof s.maxItems === "number" && value.length > s.maxItems) {
    out.push({ path, message: `Array has too many items (${value.length} > ${s.maxItems}).` });
  }
  if (typeof s.minItems === "number" && value.length < s.minItems) {
    out.push({ path, message: `Array has too few items (${value.length} < ${s.minItems}).` });
  }
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  value.forEach((item, index) => {
    const schema = index < tuple.length ? tuple[index] : rest;
    if (schema !== undefined) check(item, schema, [...path, index], out);
  });
  if (s.contains !== undefined && !value.some((item, index) => passes(check, item, s.contains, [...path, index]))) {
    out.push({ path, message: "Array does not contain item matching schema." });
  }
  if (s.uniqueItems === true) {
    const twin = (index: number) => value.findIndex((other, at) => at > index && sameJson(value[index], other));
    const first = value.findIndex((_, index) => twin(index) >= 0);
    if (first >= 0) out.push({ path, message: `Duplicate items at indexes ${first} and ${twin(first)}.` });
  }
}

function passes(check: Check, value: unknown, schema: unknown, path: Path): boolean {
  const issues: ValidationIssue[] = [];
  check(value, schema, path, issues);
  return issues.length === 0;
}
