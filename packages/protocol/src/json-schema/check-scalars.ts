import type { JsonSchema, ValidationIssue } from "../schema.js";
import type { Path } from "./check-value.js";
import { matchesFormat } from "./string-formats.js";

const patterns = new Map<string, RegExp | null>();

/** The compiled `pattern` (Unicode mode, as JSON Schema asks); `null` when it is not a valid regex. */
export function patternOf(source: string): RegExp | null {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(source, "u");
    } catch {
      pattern = null;
    }
    patterns.set(source, pattern);
  }
  return pattern;
}

/**
 * Number keywords: `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum` (a
 * number, or draft-04's boolean that makes `minimum`/`maximum` exclusive), `multipleOf`.
 */
export function checkNumber(value: number, s: JsonSchema, path: Path, out: ValidationIssue[]): void {
  const { minimum: min, maximum: max, exclusiveMinimum: exMin, exclusiveMaximum: exMax, multipleOf: step } = s;
  if (typeof min === "number" && (exMin === true ? value <= min : value < min)) {
    out.push({ path: path.slice(), message: `${value} is less than ${exMin === true ? "or equal to " : ""}${min}.` });
  }
  if (typeof exMin === "number" && value <= exMin) {
    out.push({ path: path.slice(), message: `${value} is less than or equal to ${exMin}.` });
  }
  if (typeof max === "number" && (exMax === true ? value >= max : value > max)) {
    out.push({
      path: path.slice(),
      message: `${value} is greater than ${exMax === true ? "or equal to " : ""}${max}.`,
    });
  }
  if (typeof exMax === "number" && value >= exMax) {
    out.push({ path: path.slice(), message: `${value} is greater than or equal to ${exMax}.` });
  }
  if (typeof step === "number" && step > 0) {
    const quotient = value / step;
    // Decimal steps (0.1) leave binary rounding noise in the quotient.
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient))) {
      out.push({ path: path.slice(), message: `${value} is not a multiple of ${step}.` });
    }
  }
}

/**
 * String keywords: `minLength` and `maxLength` (in code points, so an emoji counts once),
 * `pattern`, and `format` (see `matchesFormat`; an unknown format passes).
 */
export function checkString(value: string, s: JsonSchema, path: Path, out: ValidationIssue[]): void {
  const length = [...value].length;
  if (typeof s.minLength === "number" && length < s.minLength) {
    out.push({ path: path.slice(), message: `String is too short (${length} < ${s.minLength}).` });
  }
  if (typeof s.maxLength === "number" && length > s.maxLength) {
    out.push({ path: path.slice(), message: `String is too long (${length} > ${s.maxLength}).` });
  }
  if (typeof s.pattern === "string" && patternOf(s.pattern)?.test(value) === false) {
    out.push({ path: path.slice(), message: "String does not match pattern." });
  }
  if (typeof s.format === "string" && !matchesFormat(s.format, value)) {
    out.push({ path: path.slice(), message: `String does not match format "${s.format}".` });
  }
}
