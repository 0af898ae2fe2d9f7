import type { JsonSchema, ValidationIssue } from "../schema.js";
import { checkArray, checkObject } from "./check-containers.js";
import { checkNumber, checkString } from "./check-scalars.js";
import { sameJson } from "./same-json.js";

/** A path into the value being checked; numbers index arrays. */
export type Path = (string | number)[];

/** Checks `value` (found at `path`) against `schema`, pushing every issue onto `out`. */
export type Check = (value: unknown, schema: unknown, path: Path, out: ValidationIssue[]) => void;

/** Whether a value of JSON type `type` fits the `type` keyword's entry `wanted`. */
function fitsType(wanted: unknown, type: string, value: unknown): boolean {
  return wanted === type || (wanted === "integer" && Number.isInteger(value));
}

/** The JSON Schema type name of a value; `integer` is decided by the `type` keyword. */
function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Resolves a local `$ref` (`#`, `#/$defs/…`, `#/definitions/…`, any `#/…` pointer) in the root schema. */
function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node = root;
  for (const token of ref.slice(2).split("/")) {
    if (token === "" || node === null || typeof node !== "object") continue;
    node = (node as JsonSchema)[decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

/**
 * Builds the recursive check for one root schema. `$ref`s resolve against `root`; under
 * draft-04 to draft-07 a `$ref` hides its sibling keywords, as those drafts say.
 */
export function createCheck(root: JsonSchema): Check {
  const refHidesSiblings = /draft-0[4-7]/.test(String(root.$schema ?? ""));

  const check: Check = (value, schema, path, out) => {
    if (schema === false) {
      out.push({
        path: path.slice(),
        message: typeof path.at(-1) === "number" ? "Unexpected item" : "Unexpected property",
      });
      return;
    }
    if (schema === null || typeof schema !== "object") return;
    const s = schema as JsonSchema;

    if (typeof s.$ref === "string") {
      const target = resolve(root, s.$ref);
      // An unresolvable reference (a remote `$id`) checks nothing here; the server's check is the real one.
      if (target !== undefined) check(value, target, path, out);
      if (refHidesSiblings) return;
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
    if (s.const !== undefined && !sameJson(value, s.const)) {
      out.push({ path: path.slice(), message: `Instance does not match ${JSON.stringify(s.const)}.` });
    }
    if (Array.isArray(s.enum) && !s.enum.some((option) => sameJson(value, option))) {
      out.push({ path: path.slice(), message: `Instance does not match any of ${JSON.stringify(s.enum)}.` });
    }

    if (s.not !== undefined && passes(value, s.not, path))
      out.push({ path: path.slice(), message: 'Instance matched "not" schema.' });
    if (Array.isArray(s.allOf)) for (const branch of s.allOf) check(value, branch, path, out);
    if (Array.isArray(s.anyOf)) {
      const failures = s.anyOf.map((branch) => issuesOf(value, branch, path));
      if (failures.every((issues) => issues.length > 0)) {
        out.push({ path: path.slice(), message: "Instance does not match any subschemas." }, ...failures.flat());
      }
    }
    if (Array.isArray(s.oneOf)) {
      const failures = s.oneOf.map((branch) => issuesOf(value, branch, path));
      const matches = failures.filter((issues) => issues.length === 0).length;
      if (matches !== 1) {
        out.push(
          { path: path.slice(), message: `Instance does not match exactly one subschema (${matches} matches).` },
          ...failures.flat(),
        );
      }
    }

    if (type === "object") checkObject(value as Record<string, unknown>, s, path, out, check);
    else if (type === "array") checkArray(value as unknown[], s, path, out, check);
    else if (type === "number") checkNumber(value as number, s, path, out);
    else if (type === "string") checkString(value as string, s, path, out);
  };

  const issuesOf = (value: unknown, schema: unknown, path: Path) => {
    const issues: ValidationIssue[] = [];
    check(value, schema, path, issues);
    return issues;
  };
  const passes = (value: unknown, schema: unknown, path: Path) => issuesOf(value, schema, path).length === 0;

  return check;
}
