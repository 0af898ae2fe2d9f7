import type { JsonSchema, ValidationIssue } from "@hitl-kit/protocol";

const formatNames: Record<string, string> = {
  email: "an email address",
  uri: "a URL such as https://example.com",
  url: "a URL such as https://example.com",
  date: "a date",
  "date-time": "a date and time",
};

/**
 * Rewrites a validator message in words a person understands, using the field's schema
 * for the limits ("String is too short (2 < 3)." → "Use at least 3 characters.").
 * Messages it does not recognise are kept as they are.
 */
export function issueMessage(message: string, schema: JsonSchema | undefined): string {
  const s = schema ?? {};
  if (message === "Required") return "This field is required.";
  if (message.startsWith("String is too short")) return `Use at least ${s.minLength} characters.`;
  if (message.startsWith("String is too long")) return `Use at most ${s.maxLength} characters.`;
  if (message.startsWith("String does not match pattern"))
    return typeof s.description === "string"
      ? `Does not match: ${s.description}`
      : "Does not match the expected format.";
  const format = /does not match format "(.+)"/.exec(message)?.[1];
  if (format) return `Enter ${formatNames[format] ?? `a valid ${format}`}.`;
  if (/Expected "integer"/.test(message)) return "Enter a whole number.";
  if (/Expected "number"/.test(message)) return "Enter a number.";
  if (/ is less than /.test(message)) return `Enter ${s.minimum ?? s.exclusiveMinimum} or more.`;
  if (/ is greater than /.test(message)) return `Enter ${s.maximum ?? s.exclusiveMaximum} or less.`;
  if (message.startsWith("Array has too few items")) return `Choose at least ${s.minItems}.`;
  if (message.startsWith("Array has too many items")) return `Choose at most ${s.maxItems}.`;
  if (message.startsWith("Instance does not match any of")) return "Choose one of the options.";
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
