import type { JsonSchema } from "@hitl-kit/protocol";

/** An enum option of a select, radio group or checkbox group, with its label. */
export interface EnumOption {
  value: unknown;
  label: string;
}

/** A property of an object node. */
export interface FormProperty {
  key: string;
  node: FormNode;
  required: boolean;
}

/**
 * The part of JSON Schema the form can express, as a tree of field kinds. Anything else
 * (`oneOf` of objects, `$ref`, tuples, arrays of objects, …) has no node, and the form
 * falls back to the JSON editor.
 */
export type FormNode =
  | {
      kind: "text";
      schema: JsonSchema;
      inputType: "text" | "email" | "url" | "date" | "datetime-local";
      multiline: boolean;
    }
  | { kind: "number"; schema: JsonSchema; integer: boolean }
  | { kind: "boolean"; schema: JsonSchema }
  | { kind: "enum"; schema: JsonSchema; options: EnumOption[] }
  | { kind: "multi"; schema: JsonSchema; options: EnumOption[] }
  | { kind: "object"; schema: JsonSchema; properties: FormProperty[] };

/** Keywords the form cannot honour; a schema using any of them is edited as JSON. */
const unsupported = [
  "$ref",
  "$dynamicRef",
  "allOf",
  "not",
  "if",
  "patternProperties",
  "prefixItems",
  "dependentSchemas",
];

const inputTypes: Record<string, "email" | "url" | "date" | "datetime-local"> = {
  email: "email",
  uri: "url",
  url: "url",
  date: "date",
  "date-time": "datetime-local",
};

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Options of an `enum`, or of a `oneOf`/`anyOf` whose every branch is a `const` (with an optional `title`). */
export function enumOptions(schema: JsonSchema): EnumOption[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every(isPrimitive)) {
    // `enumNames`: the labels of the values, as MCP's titled enums of old have them.
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => {
      const name = names[index];
      return { value, label: typeof name === "string" ? name : String(value) };
    });
  }
  const branches = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  if (!branches.every((branch) => isObject(branch) && "const" in branch && isPrimitive(branch.const))) return undefined;
  return (branches as JsonSchema[]).map((branch) => ({
    value: branch.const,
    label: typeof branch.title === "string" ? branch.title : String(branch.const),
  }));
}

/** The form node of a schema, or `undefined` when the form cannot express it. */
export function toFormNode(schema: unknown): FormNode | undefined {
  if (!isObject(schema) || unsupported.some((keyword) => keyword in schema)) return undefined;
  const options = enumOptions(schema);
  if (options) return { kind: "enum", schema, options };
  if ("oneOf" in schema || "anyOf" in schema || "const" in schema) return undefined;
  switch (schema.type) {
    case "string": {
      const format = typeof schema.format === "string" ? inputTypes[schema.format] : undefined;
      const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : 0;
      return { kind: "text", schema, inputType: format ?? "text", multiline: !format && maxLength >= 500 };
    }
    case "number":
    case "integer":
      return { kind: "number", schema, integer: schema.type === "integer" };
    case "boolean":
      return { kind: "boolean", schema };
    case "array": {
      const items = isObject(schema.items) ? enumOptions(schema.items) : undefined;
      return items ? { kind: "multi", schema, options: items } : undefined;
    }
    case "object":
      return objectNode(schema);
    default:
      return undefined;
  }
}

function objectNode(schema: JsonSchema): FormNode | undefined {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === "string") : [];
  // A record (no named properties, open extras) has no fixed fields to render.
  if (Object.keys(props).length === 0 && schema.additionalProperties !== false) return undefined;
  if (required.some((key) => !(key in props))) return undefined;
  const properties: FormProperty[] = [];
  for (const [key, child] of Object.entries(props)) {
    const node = toFormNode(child);
    if (!node) return undefined;
    properties.push({ key, node, required: required.includes(key) });
  }
  return { kind: "object", schema, properties };
}

/** A key in sentence case, as English writes it: `templateId` → "Template id". */
export function sentenceCase(key: string): string {
  const words = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field's label: its `title`, or its key made a label by `texts.label` (`templateId` → "Template id"), else `texts.answer`. */
export function labelOf(
  schema: JsonSchema,
  key: string | undefined,
  texts: { label: (key: string) => string; answer: string },
): string {
  if (typeof schema.title === "string" && schema.title.trim() !== "") return schema.title;
  return key ? texts.label(key) : texts.answer;
}

/** A field's help text, from `description`. */
export function descriptionOf(schema: JsonSchema): string | undefined {
  return typeof schema.description === "string" && schema.description !== "" ? schema.description : undefined;
}
