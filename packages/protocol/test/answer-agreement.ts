import { type SchemaLike, toJsonSchema, validate, validateJsonSchema } from "../src/index.js";

/** Strings at and around the lengths tools use, in ASCII and in emoji (two UTF-16 units each). */
const strings = [0, 1, 2, 3, 80, 81, 120, 121, 500, 501, 10_000, 10_001].flatMap((length) => [
  "a".repeat(length),
  "👍".repeat(Math.ceil(length / 2)),
]);
const leaves: unknown[] = [
  ...strings,
  " ",
  "  Ada  ",
  "ada@example.com",
  "ada@example",
  "2024-02-29",
  "2023-02-29",
  "2024-01-31T10:00:00Z",
  "2024-01-31T10:00:00",
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  4,
  5,
  500,
  501,
  1e9,
  [],
  {},
];

/** Every string and number the schema names (enum values, property names), to reach its branches. */
function named(schema: unknown, into: unknown[] = []): unknown[] {
  if (typeof schema === "string" || typeof schema === "number") into.push(schema);
  else if (Array.isArray(schema)) for (const item of schema) named(item, into);
  else if (schema !== null && typeof schema === "object") {
    for (const [key, item] of Object.entries(schema)) {
      into.push(key);
      named(item, into);
    }
  }
  return into;
}

/**
 * Values near a good answer: each part of it (the whole too) replaced by each of `leaves`
 * and by every name in the schema, each key removed, a key added, each array item removed
 * and repeated.
 */
export function nearValues(sample: unknown, schema: unknown): unknown[] {
  const replacements = [...leaves, ...new Set(named(schema))];
  const near: unknown[] = [sample, ...replacements];
  if (Array.isArray(sample)) {
    sample.forEach((item, index) => {
      near.push(
        sample.filter((_, at) => at !== index),
        [...sample, item],
      );
      for (const value of nearValues(item, schema)) near.push(sample.map((old, at) => (at === index ? value : old)));
    });
  } else if (sample !== null && typeof sample === "object") {
    const object = sample as Record<string, unknown>;
    near.push({ ...object, extra: 1 });
    for (const key of Object.keys(object)) {
      const { [key]: _removed, ...without } = object;
      near.push(without);
      for (const value of nearValues(object[key], schema)) near.push({ ...object, [key]: value });
    }
  }
  return near;
}

/**
 * The values a Standard Schema (checked on the server) and `validateJsonSchema` over its
 * JSON Schema (checked in the browser) judge differently.
 */
export async function disagreements(schema: SchemaLike, samples: unknown[]) {
  const json = toJsonSchema(schema);
  const found: { value: unknown; server: boolean; browser: boolean }[] = [];
  for (const value of samples.flatMap((sample) => nearValues(sample, json))) {
    const server = (await validate(schema, value)).ok;
    const browser = validateJsonSchema(json, value).ok;
    if (server !== browser) found.push({ value, server, browser });
  }
  return found;
}
