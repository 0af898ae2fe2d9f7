import type { JsonSchema, ValidationIssue } from "@hitl-kit/protocol";
import type { IssueTexts } from "../widget-texts.js";

/**
 * Rewrites a validator message in words a person understands, using the field's schema
 * for the limits ("String is too short (2 < 3)." → `texts.minLength(3)`, "Use at least 3
 * characters."). Messages it does not recognise are kept as they are.
 */
export function issueMessage(message: string, schema: JsonSchema | undefined, texts: IssueTexts): string {
  const s = schema ?? {};
  if (message === "Required") return texts.required;
  if (message.startsWith("String is too short")) return texts.minLength(s.minLength as number);
  if (message.startsWith("String is too long")) return texts.maxLength(s.maxLength as number);
  if (message.startsWith("String does not match pattern"))
    return texts.pattern(typeof s.description === "string" ? s.description : undefined);
  const format = /does not match format "(.+)"/.exec(message)?.[1];
  if (format) return texts.format(format);
  if (/Expected "integer"/.test(message)) return texts.integer;
  if (/Expected "number"/.test(message)) return texts.number;
  if (/ is less than /.test(message)) return texts.minimum((s.minimum ?? s.exclusiveMinimum) as number);
  if (/ is greater than /.test(message)) return texts.maximum((s.maximum ?? s.exclusiveMaximum) as number);
  if (message.startsWith("Array has too few items")) return texts.minItems(s.minItems as number);
  if (message.startsWith("Array has too many items")) return texts.maxItems(s.maxItems as number);
  if (message.startsWith("Instance does not match any of")) return texts.oneOf;
  return message;
}

/** A stable key for a path, to match issues with fields. */
export function pathKey(path: readonly (string | number)[]): string {
  return JSON.stringify(path.map(String));
}

/**
 * Groups issues by the field they belong to: the longest prefix of each issue's path
 * that names a field (`["tags", 2]` belongs to the `tags` checkboxes). Issues no field
 * claims are grouped under the root path.
 */
export function issuesByField(
  issues: readonly ValidationIssue[],
  fieldKeys: ReadonlySet<string>,
): Map<string, ValidationIssue[]> {
  const byField = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    let path = issue.path;
    while (path.length > 0 && !fieldKeys.has(pathKey(path))) path = path.slice(0, -1);
    const key = pathKey(path);
    byField.set(key, [...(byField.get(key) ?? []), issue]);
  }
  return byField;
}
