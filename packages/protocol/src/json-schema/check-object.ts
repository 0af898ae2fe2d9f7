import type { JsonSchema, ValidationIssue } from "../schema.js";
import { patternOf } from "./check-scalars.js";
import type { Check, Path, Seen } from "./check-value.js";

const own = (object: object, key: string) => Object.hasOwn(object, key);

/** Pushes `Required` at each of `keys` the object lacks. */
function requireKeys(value: Record<string, unknown>, keys: unknown, path: Path, out: ValidationIssue[]): void {
  if (!Array.isArray(keys)) return;
  for (const key of keys) {
    if (!own(value, key) || value[key] === undefined) out.push({ path: [...path, key], message: "Required" });
  }
}

/**
 * Object keywords: `required`, `dependentRequired`, `dependentSchemas` and draft-07's
 * `dependencies` (either kind), `properties`, `patternProperties`, `additionalProperties`
 * (a schema, or `false` for "Unexpected property"), `propertyNames`, `minProperties`,
 * `maxProperties`, and last `unevaluatedProperties`, over what every other keyword at
 * this place left unevaluated (`seen`). A key whose value is `undefined` counts as absent,
 * as in JSON.
 */
export function checkObject(
  value: Record<string, unknown>,
  s: JsonSchema,
  path: Path,
  out: ValidationIssue[],
  check: Check,
  seen: Seen | undefined,
): void {
  // A key whose value is undefined is skipped everywhere below, as JSON drops it.
  let count = 0;
  for (const key in value) if (own(value, key) && value[key] !== undefined) count++;
  requireKeys(value, s.required, path, out);
  if (typeof s.minProperties === "number" && count < s.minProperties) {
    out.push({ path: path.slice(), message: `Instance does not have at least ${s.minProperties} properties.` });
  }
  if (typeof s.maxProperties === "number" && count > s.maxProperties) {
    out.push({ path: path.slice(), message: `Instance has more than ${s.maxProperties} properties.` });
  }
  // draft-07's `dependencies` holds both kinds: a list of names, or a schema.
  if (s.dependencies || s.dependentRequired || s.dependentSchemas) {
    for (const map of [s.dependencies, s.dependentRequired, s.dependentSchemas]) {
      for (const [key, dependent] of Object.entries(map ?? {})) {
        if (!own(value, key) || value[key] === undefined) continue;
        if (Array.isArray(dependent)) requireKeys(value, dependent, path, out);
        else check(value, dependent, path, out, seen);
      }
    }
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
    if (!known && s.additionalProperties !== undefined) {
      known = true;
      check(value[key], s.additionalProperties, path, out);
    }
    if (known) seen?.keys.add(key);
    else if (s.unevaluatedProperties !== undefined && !seen?.all && !seen?.keys.has(key)) {
      check(value[key], s.unevaluatedProperties, path, out);
    }
    path.pop();
  }
  if (seen && s.unevaluatedProperties !== undefined) seen.all = true;
}
