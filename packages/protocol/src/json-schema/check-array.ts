import { canonicalJson } from "../json-equal.js";
import type { JsonSchema, ValidationIssue } from "../schema.js";
import type { Check, Path, Seen } from "./check-value.js";

/**
 * Array keywords: `minItems`, `maxItems`, `prefixItems`, `items` (one schema, or an array
 * of schemas with `additionalItems` as draft-07 writes a tuple), `contains` with
 * `minContains`/`maxContains`, `uniqueItems`, and last `unevaluatedItems`, over the items
 * no other keyword at this place evaluated (`seen`).
 */
export function checkArray(
  value: unknown[],
  s: JsonSchema,
  path: Path,
  out: ValidationIssue[],
  check: Check,
  seen: Seen | undefined,
): void {
  if (typeof s.maxItems === "number" && value.length > s.maxItems) {
    out.push({ path: path.slice(), message: `Array has too many items (${value.length} > ${s.maxItems}).` });
  }
  if (typeof s.minItems === "number" && value.length < s.minItems) {
    out.push({ path: path.slice(), message: `Array has too few items (${value.length} < ${s.minItems}).` });
  }
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  if (s.contains !== undefined) {
    const matches = value.flatMap((item, index) => {
      const issues: ValidationIssue[] = [];
      check(item, s.contains, path, issues);
      return issues.length === 0 ? [index] : [];
    });
    for (const index of matches) seen?.keys.add(index);
    const min = typeof s.minContains === "number" ? s.minContains : 1;
    if (matches.length < min) {
      out.push({
        path: path.slice(),
        message:
          min === 1
            ? "Array does not contain item matching schema."
            : `Array contains too few items matching schema (${matches.length} < ${min}).`,
      });
    }
    if (typeof s.maxContains === "number" && matches.length > s.maxContains) {
      out.push({
        path: path.slice(),
        message: `Array contains too many items matching schema (${matches.length} > ${s.maxContains}).`,
      });
    }
  }
  value.forEach((item, index) => {
    const schema = index < tuple.length ? tuple[index] : rest;
    const unevaluated = schema === undefined && s.unevaluatedItems !== undefined && !seen?.all;
    if (schema === undefined && (!unevaluated || seen?.keys.has(index))) return;
    path.push(index);
    check(item, schema ?? s.unevaluatedItems, path, out);
    if (schema !== undefined) seen?.keys.add(index);
    path.pop();
  });
  if (seen && s.unevaluatedItems !== undefined) seen.all = true;
  if (s.uniqueItems === true) {
    const firstAt = new Map<string, number>();
    for (const [index, item] of value.entries()) {
      const key = canonicalJson(item);
      const first = firstAt.get(key);
      if (first !== undefined) {
        out.push({ path: path.slice(), message: `Duplicate items at indexes ${first} and ${index}.` });
        break;
      }
      firstAt.set(key, index);
    }
  }
}
