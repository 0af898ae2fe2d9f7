/**
 * Whether two values are equal as JSON: the same primitives, arrays with equal items in
 * the same order, objects with equal values under the same keys in any order (a key whose
 * value is `undefined` counts as absent, as `JSON.stringify` drops it). The one structural
 * equality of hitl-kit: JSON Schema's `const`, `enum` and `uniqueItems`, a repeated answer
 * on the server, the fallback form's enum options and a widget's chosen options all
 * compare with it.
 * @example
 * jsonEqual({ a: 1, b: [2] }, { b: [2], a: 1 }); // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => jsonEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  return (
    keys.length === Object.keys(right).filter((key) => right[key] !== undefined).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

/**
 * A text that is the same for two values exactly when {@link jsonEqual} says they are equal:
 * object keys sorted, keys whose value is `undefined` left out. Comparing these in a set
 * finds equal items in linear time, where comparing each pair takes quadratic time.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
