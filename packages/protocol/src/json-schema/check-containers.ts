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
  let count = 0;
  for (const key in value) if (own(value, key) && value[key] !== undefined) count++;
  if (Array.isArray(s.required)) {
    for (const key of s.required) {
      if (!own(value, key) || value[key] === undefined) out.push({ path: [...path, key], message: "Required" });
    }
  }
  if (typeof s.minProperties === "number" && count < s.minProperties) {
    out.push({ path: path.slice(), message: `Instance does not have at least ${s.minProperties} properties.` });
  }
  if (typeof s.maxProperties === "number" && count > s.maxProperties) {
    out.push({ path: path.slice(), message: `Instance has more than ${s.maxProperties} properties.` });
  }
  const properties = (s.properties ?? {}) as JsonSchema;
  const patterns = s.patternProperties ? Object.entries(s.patternProperties as JsonSchema) : [];
  for (const key in value) {
    if (!own(value, key) || value[key] === undefined) continue;
    // One path for the whole walk, copied only when an issue is recorded.
    path.push(key);
    if (s.propertyNames !== undefined) check(key, s.propertyNames, path, out);
    let known = own(properties, key);
    if (known) check(value[key], properties[key], path, out);
    for (const [pattern, schema] of patterns) {
      if (patternOf(pattern)?.test(key)) {
        known = true;
        check(value[key], schema, path, out);
      }
    }
    if (!known && s.additionalProperties !== undefined) check(value[key], s.additionalProperties, path, out);
    path.pop();
  }
}

/**
 * Array keywords: `minItems`, `maxItems`, `prefixItems`, `items` (one schema, or an array
 * of schemas with `additionalItems` as draft-07 writes a tuple), `contains`, `uniqueItems`.
 */
export function checkArray(value: unknown[], s: JsonSchema, path: Path, out: ValidationIssue[], check: Check): void {
  if (typeof s.maxItems === "number" && value.length > s.maxItems) {
    out.push({ path: path.slice(), message: `Array has too many items (${value.length} > ${s.maxItems}).` });
  }
  if (typeof s.minItems === "number" && value.length < s.minItems) {
    out.push({ path: path.slice(), message: `Array has too few items (${value.length} < ${s.minItems}).` });
  }
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  value.forEach((item, index) => {
    const schema = index < tuple.length ? tuple[index] : rest;
    if (schema === undefined) return;
    path.push(index);
    check(item, schema, path, out);
    path.pop();
  });
  if (s.contains !== undefined && !value.some((item) => passes(check, item, s.contains, path))) {
    out.push({ path: path.slice(), message: "Array does not contain item matching schema." });
  }
  if (s.uniqueItems === true) {
    const twin = (index: number) => value.findIndex((other, at) => at > index && sameJson(value[index], other));
    const first = value.findIndex((_, index) => twin(index) >= 0);
    if (first >= 0)
      out.push({ path: path.slice(), message: `Duplicate items at indexes ${first} and ${twin(first)}.` });
  }
}

function passes(check: Check, value: unknown, schema: unknown, path: Path): boolean {
  const issues: ValidationIssue[] = [];
  check(value, schema, path, issues);
  return issues.length === 0;
}
