import { jsonEqual } from "../json-equal.js";
import type { JsonSchema, ValidationIssue } from "../schema.js";
import { checkArray } from "./check-array.js";
import { checkObject } from "./check-object.js";
import { checkNumber, checkString } from "./check-scalars.js";

/** A path into the value being checked; numbers index arrays. */
export type Path = (string | number)[];

/**
 * What the keywords applied to one value evaluated — property names or item indexes, or
 * `all` of them — for `unevaluatedProperties` and `unevaluatedItems`.
 */
export interface Seen {
  all: boolean;
  keys: Set<string | number>;
}

/**
 * Checks `value` (found at `path`) against `schema`, pushing every issue onto `out` and,
 * when `seen` is given, what it evaluated of the value onto it.
 */
export type Check = (value: unknown, schema: unknown, path: Path, out: ValidationIssue[], seen?: Seen) => void;

/** Whether a value of JSON type `type` fits the `type` keyword's entry `wanted`. */
function fitsType(wanted: unknown, type: string, value: unknown): boolean {
  return wanted === type || (wanted === "integer" && Number.isInteger(value));
}

/** The JSON Schema type name of a value; `integer` is decided by the `type` keyword. */
function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Resolves a local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`, any `#/…` pointer) in the root schema. */
export function resolveRef(root: unknown, ref: string): unknown {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  let node = root;
  for (const token of ref.slice(2).split("/")) {
    if (token === "") continue;
    if (node === null || typeof node !== "object") return undefined;
    node = (node as JsonSchema)[decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

/** Adds what `from` evaluated to `into`. */
function addSeen(into: Seen | undefined, from: Seen | undefined): void {
  if (!into || !from) return;
  into.all ||= from.all;
  for (const key of from.keys) into.keys.add(key);
}

/**
 * Builds the recursive check for one root schema. `$ref`s resolve against `root`; under
 * draft-04 to draft-07 a `$ref` hides its sibling keywords, as those drafts say. What
 * each keyword evaluated is tracked only when the document uses `unevaluated*`.
 */
export function createCheck(root: JsonSchema): Check {
  const refHidesSiblings = /draft-0[4-7]/.test(String(root.$schema ?? ""));
  const tracks = JSON.stringify(root).includes('"unevaluated');

  /** The issues and what was evaluated when `value` is checked against `schema` on its own. */
  const attempt = (value: unknown, schema: unknown, path: Path) => {
    const issues: ValidationIssue[] = [];
    const seen = tracks ? { all: false, keys: new Set<string | number>() } : undefined;
    check(value, schema, path, issues, seen);
    return { issues, seen };
  };

  const check: Check = (value, schema, path, out, seen) => {
    if (schema === false) {
      out.push({
        path: path.slice(),
        message: typeof path.at(-1) === "number" ? "Unexpected item" : "Unexpected property",
      });
      return;
    }
    if (schema === null || typeof schema !== "object") return;
    const s = schema as JsonSchema;
    const local: Seen | undefined = tracks ? { all: false, keys: new Set() } : undefined;

    if (typeof s.$ref === "string") {
      const target = resolveRef(root, s.$ref);
      // An unresolvable reference is refused when a tool is defined (see findUnsupportedKeyword).
      if (target !== undefined) check(value, target, path, out, local);
      if (refHidesSiblings) return addSeen(seen, local);
    }

    const type = typeOf(value);
    if (s.type !== undefined) {
      const fits =
        typeof s.type === "string"
          ? fitsType(s.type, type, value)
          : Array.isArray(s.type) && s.type.some((t) => fitsType(t, type, value));
      if (!fits) {
        const types = ([] as unknown[]).concat(s.type);
        out.push({
          path: path.slice(),
          message: `Instance type "${type}" is invalid. Expected "${types.join('", "')}".`,
        });
      }
    }
    if (s.const !== undefined && !jsonEqual(value, s.const)) {
      out.push({ path: path.slice(), message: `Instance does not match ${JSON.stringify(s.const)}.` });
    }
    if (Array.isArray(s.enum) && !s.enum.some((option) => jsonEqual(value, option))) {
      out.push({ path: path.slice(), message: `Instance does not match any of ${JSON.stringify(s.enum)}.` });
    }

    if (s.not !== undefined && attempt(value, s.not, path).issues.length === 0)
      out.push({ path: path.slice(), message: 'Instance matched "not" schema.' });
    if (Array.isArray(s.allOf)) for (const branch of s.allOf) check(value, branch, path, out, local);
    if (Array.isArray(s.anyOf)) {
      const tries = s.anyOf.map((branch) => attempt(value, branch, path));
      const passed = tries.filter((branch) => branch.issues.length === 0);
      for (const branch of passed) addSeen(local, branch.seen);
      if (passed.length === 0) {
        out.push({ path: path.slice(), message: "Instance does not match any subschemas." });
        for (const branch of tries) out.push(...branch.issues);
      }
    }
    if (Array.isArray(s.oneOf)) {
      const tries = s.oneOf.map((branch) => attempt(value, branch, path));
      const passed = tries.filter((branch) => branch.issues.length === 0);
      if (passed.length === 1) addSeen(local, passed[0]?.seen);
      else {
        out.push({
          path: path.slice(),
          message: `Instance does not match exactly one subschema (${passed.length} matches).`,
        });
        for (const branch of tries) out.push(...branch.issues);
      }
    }
    if (s.if !== undefined) {
      const condition = attempt(value, s.if, path);
      if (condition.issues.length === 0) {
        addSeen(local, condition.seen);
        if (s.then !== undefined) check(value, s.then, path, out, local);
      } else if (s.else !== undefined) check(value, s.else, path, out, local);
    }

    if (type === "object") checkObject(value as Record<string, unknown>, s, path, out, check, local);
    else if (type === "array") checkArray(value as unknown[], s, path, out, check, local);
    else if (type === "number") checkNumber(value as number, s, path, out);
    else if (type === "string") checkString(value as string, s, path, out);
    addSeen(seen, local);
  };

  return check;
}
