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
  if (typeof step === "number" && step > 0 && !isMultipleOf(value, step)) {
    out.push({ path: path.slice(), message: `${value} is not a multiple of ${step}.` });
  }
}

/** A number as the integer and the power of ten its shortest decimal form has: 0.35 → [35n, -2]. */
function decimal(value: number): [bigint, number] {
  const [digits = "0", exponent = "0"] = Math.abs(value).toString().split("e");
  const point = digits.indexOf(".");
  return [BigInt(digits.replace(".", "")), Number(exponent) - (point === -1 ? 0 : digits.length - point - 1)];
}

/**
 * Whether `value` is a whole multiple of `step`, in decimal as written (as zod and other
 * validators decide it): 0.3 is a multiple of 0.1, and 0.1 + 0.2 (0.30000000000000004) is not.
 */
function isMultipleOf(value: number, step: number): boolean {
  const [a, x] = decimal(value);
  const [b, y] = decimal(step);
  return x >= y ? (a * 10n ** BigInt(x - y)) % b === 0n : a % (b * 10n ** BigInt(y - x)) === 0n;
}

/**
 * String keywords: `minLength` and `maxLength` (in code points, as the specification and
 * zod count: an emoji counts once), `pattern`, and `format` (see `matchesFormat`; an
 * unknown format passes).
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
