import type { JsonSchema } from "../schema.js";
import { patternOf } from "./check-scalars.js";
import { resolveRef } from "./check-value.js";
import { isKnownFormat } from "./string-formats.js";

/** A keyword `validateJsonSchema` cannot check, where it is, and why. */
export interface UnsupportedKeyword {
  keyword: string;
  /** A JSON pointer to the schema that uses it (`#/properties/when`). */
  at: string;
  reason: string;
}

const types = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
/** Keywords whose value is one schema (`items` may also be a list). */
const single = [
  "not",
  "if",
  "then",
  "else",
  "items",
  "additionalItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
];
/** Keywords whose value is a list of schemas. */
const lists = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords whose value maps names to schemas (`dependencies` also to lists of names). */
const maps = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"];
const refused: Record<string, string> = {
  $dynamicRef: "dynamic references are not supported; use a $ref to #/$defs/…",
  $dynamicAnchor: "dynamic references are not supported; use a $ref to #/$defs/…",
  $recursiveRef: "recursive references are not supported; use a $ref to #/$defs/… or #",
  $recursiveAnchor: "recursive references are not supported; use a $ref to #/$defs/… or #",
  $anchor: "anchors are not supported; refer to the schema with a JSON pointer (#/$defs/…)",
  $vocabulary: "custom vocabularies are not supported",
};

const pointer = (tokens: readonly string[]) =>
  `#${tokens.map((token) => `/${token.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")}`;

/**
 * The first keyword in a JSON Schema that `validateJsonSchema` would not check as the
 * specification says, or `undefined` when it checks every one. Refused: dynamic and
 * recursive references, `$anchor`, `$vocabulary`, an `$id` below the root, a `$ref` that
 * does not point into the document, a `format` it does not know without a `pattern` beside
 * it, a `pattern` (or `patternProperties` name) that is not a valid Unicode regular
 * expression, and an unknown `type`. Keywords JSON Schema does not define are annotations,
 * as the specification says, and pass.
 * @example
 * findUnsupportedKeyword({ properties: { a: { $dynamicRef: "#node" } } });
 * // → { keyword: "$dynamicRef", at: "#/properties/a", reason: "dynamic references are not supported; …" }
 */
export function findUnsupportedKeyword(root: JsonSchema): UnsupportedKeyword | undefined {
  const visit = (schema: unknown, at: string[]): UnsupportedKeyword | undefined => {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return undefined;
    const s = schema as JsonSchema;
    const found = (keyword: string, reason: string) => ({ keyword, at: pointer(at), reason });
    for (const keyword of Object.keys(refused)) {
      if (keyword in s) return found(keyword, refused[keyword]!);
    }
    if ("$id" in s && at.length > 0) {
      return found("$id", "an $id below the root changes what the $refs under it mean; use #/$defs/… instead");
    }
    if ("$ref" in s && (typeof s.$ref !== "string" || resolveRef(root, s.$ref) === undefined)) {
      return found("$ref", `${JSON.stringify(s.$ref)} does not point into this schema; use # or #/$defs/…`);
    }
    if ("format" in s && (typeof s.format !== "string" || !isKnownFormat(s.format)) && !("pattern" in s)) {
      return found(
        "format",
        `the format ${JSON.stringify(s.format)} is not one hitl-kit checks; add a pattern that says what it means`,
      );
    }
    const patterns = [...("pattern" in s ? [s.pattern] : []), ...Object.keys(s.patternProperties ?? {})];
    const badPattern = patterns.find((pattern) => typeof pattern !== "string" || patternOf(pattern) === null);
    if (badPattern !== undefined) {
      return found("pattern", `${JSON.stringify(badPattern)} is not a valid regular expression (with the u flag)`);
    }
    const badType = ([] as unknown[]).concat(s.type ?? []).find((type) => !types.has(type as string));
    if (badType !== undefined) return found("type", `${JSON.stringify(badType)} is not a JSON Schema type`);

    for (const keyword of single) {
      const inner = Array.isArray(s[keyword]) ? undefined : visit(s[keyword], [...at, keyword]);
      if (inner) return inner;
    }
    for (const keyword of lists) {
      const list = Array.isArray(s[keyword]) ? s[keyword] : [];
      for (const [index, item] of list.entries()) {
        const inner = visit(item, [...at, keyword, String(index)]);
        if (inner) return inner;
      }
    }
    for (const keyword of maps) {
      for (const [name, item] of Object.entries((s[keyword] ?? {}) as JsonSchema)) {
        const inner = visit(item, [...at, keyword, name]);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  return visit(root, []);
}
