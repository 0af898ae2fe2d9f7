// biome-ignore-all lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, in schemas, not thenables
import { Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type JsonSchema, validateJsonSchema } from "../src/index.js";

/**
 * Our validator against a maintained one (@cfworker/json-schema), keyword by keyword:
 * each case's values must be accepted or refused as listed by both, and random values
 * built from the schema's own names and constants must get the same verdict from both.
 */
interface Case {
  keyword: string;
  schema: JsonSchema;
  accept: unknown[];
  reject: unknown[];
  /** The draft the maintained validator applies (2020-12 unless a draft-07 keyword is tested). */
  draft?: "7" | "2020-12";
  /** Random values too (off for formats, whose edge cases each validator draws differently). */
  random?: boolean;
}

const cases: Case[] = [
  { keyword: "type", schema: { type: "integer" }, accept: [1, -3, 2.0], reject: [1.5, "1", null] },
  { keyword: "type (list)", schema: { type: ["string", "null"] }, accept: ["a", null], reject: [0, [], {}] },
  { keyword: "const", schema: { const: { a: [1, "x"] } }, accept: [{ a: [1, "x"] }], reject: [{ a: [1] }, "x"] },
  { keyword: "enum", schema: { enum: ["a", 2, null, [1]] }, accept: ["a", 2, null, [1]], reject: ["b", [2], false] },
  {
    keyword: "multipleOf",
    schema: { multipleOf: 0.1 },
    accept: [0.3, 2, -0.7, 0],
    reject: [0.35, 0.1 + 0.2, 0.01],
  },
  { keyword: "maximum, minimum", schema: { minimum: 1, maximum: 3 }, accept: [1, 3, "x"], reject: [0.9, 3.1] },
  {
    keyword: "exclusiveMaximum, exclusiveMinimum",
    schema: { exclusiveMinimum: 1, exclusiveMaximum: 3 },
    accept: [1.5, 2],
    reject: [1, 3],
  },
  {
    keyword: "maxLength, minLength",
    schema: { minLength: 2, maxLength: 3 },
    accept: ["ab", "abc", "👍👍", 7],
    reject: ["a", "abcd", "👍"],
  },
  { keyword: "pattern", schema: { pattern: "^\\p{Lu}\\d+$" }, accept: ["A1", "É22", 3], reject: ["a1", "A", "1A"] },
  {
    keyword: "required",
    schema: { required: ["a", "b"] },
    accept: [{ a: 1, b: null }, "not an object"],
    reject: [{ a: 1 }, {}],
  },
  {
    keyword: "properties",
    schema: { properties: { a: { type: "string" }, b: { type: "number" } } },
    accept: [{ a: "x" }, {}, { c: true }],
    reject: [{ a: 1 }, { b: "2" }],
  },
  {
    keyword: "additionalProperties",
    schema: { properties: { a: true }, patternProperties: { "^x-": true }, additionalProperties: { type: "number" } },
    accept: [{ a: "s", "x-b": "s", c: 1 }],
    reject: [{ c: "s" }],
  },
  {
    keyword: "patternProperties",
    schema: { patternProperties: { "^n_": { type: "number" }, _s$: { type: "string" } } },
    accept: [{ n_a: 1, b_s: "x", other: null }],
    reject: [{ n_a: "1" }, { n_s: 1 }],
  },
  {
    keyword: "propertyNames",
    schema: { propertyNames: { pattern: "^[a-z]+$", maxLength: 3 } },
    accept: [{ abc: 1 }, {}],
    reject: [{ Abc: 1 }, { abcd: 1 }],
  },
  {
    keyword: "maxProperties, minProperties",
    schema: { minProperties: 1, maxProperties: 2 },
    accept: [{ a: 1 }, { a: 1, b: 2 }],
    reject: [{}, { a: 1, b: 2, c: 3 }],
  },
  {
    keyword: "dependentRequired",
    schema: { dependentRequired: { card: ["expiry", "cvc"] } },
    accept: [{}, { card: 1, expiry: 1, cvc: 1 }, { expiry: 1 }],
    reject: [{ card: 1 }, { card: 1, expiry: 1 }],
  },
  {
    keyword: "dependentSchemas",
    schema: { dependentSchemas: { gift: { required: ["message"], properties: { message: { maxLength: 5 } } } } },
    accept: [{}, { gift: true, message: "Hi" }],
    reject: [{ gift: true }, { gift: true, message: "Happy birthday" }],
  },
  {
    keyword: "dependencies",
    draft: "7",
    schema: { dependencies: { card: ["expiry"], gift: { required: ["message"] } } },
    accept: [{}, { card: 1, expiry: 1 }, { gift: 1, message: "x" }],
    reject: [{ card: 1 }, { gift: 1 }],
  },
  {
    keyword: "items",
    schema: { items: { type: "string" } },
    accept: [[], ["a", "b"]],
    reject: [["a", 1]],
  },
  {
    keyword: "prefixItems",
    schema: { prefixItems: [{ type: "string" }, { type: "number" }], items: false },
    accept: [["a"], ["a", 1]],
    reject: [[1], ["a", "b"], ["a", 1, 2]],
  },
  {
    keyword: "additionalItems",
    draft: "7",
    schema: { items: [{ type: "string" }], additionalItems: { type: "number" } },
    accept: [["a"], ["a", 1, 2]],
    reject: [[1], ["a", "b"]],
  },
  {
    keyword: "contains",
    schema: { contains: { type: "number" } },
    accept: [[1], ["a", 2]],
    reject: [[], ["a"]],
  },
  {
    keyword: "maxContains, minContains",
    schema: { contains: { type: "number" }, minContains: 2, maxContains: 3 },
    accept: [
      [1, 2],
      [1, "a", 2, 3],
    ],
    reject: [[1], [1, 2, 3, 4]],
  },
  {
    keyword: "minContains: 0",
    schema: { contains: { type: "number" }, minContains: 0 },
    accept: [[], ["a"]],
    reject: [],
  },
  {
    keyword: "maxItems, minItems",
    schema: { minItems: 1, maxItems: 2 },
    accept: [[1], [1, 2]],
    reject: [[], [1, 2, 3]],
  },
  {
    keyword: "uniqueItems",
    schema: { uniqueItems: true },
    accept: [[1, "1", { a: 1 }, { a: 2 }]],
    reject: [
      [1, 1],
      [{ a: [1] }, { a: [1] }],
    ],
  },
  {
    keyword: "allOf",
    schema: { allOf: [{ minimum: 1 }, { multipleOf: 2 }] },
    accept: [2, 4],
    reject: [1, 0],
  },
  {
    keyword: "anyOf",
    schema: { anyOf: [{ type: "string" }, { minimum: 10 }] },
    accept: ["a", 10],
    reject: [9],
  },
  {
    keyword: "oneOf",
    schema: { oneOf: [{ type: "integer" }, { minimum: 2 }] },
    accept: [1, 2.5],
    reject: [3, 1.5],
  },
  { keyword: "not", schema: { not: { type: "string" } }, accept: [1, null], reject: ["a"] },
  {
    keyword: "if, then, else",
    schema: {
      if: { properties: { method: { const: "post" } }, required: ["method"] },
      then: { required: ["address"] },
      else: { required: ["store"] },
    },
    accept: [{ method: "post", address: "x" }, { method: "pickup", store: "y" }, { store: "y" }],
    reject: [{ method: "post" }, { method: "pickup", address: "x" }],
  },
  { keyword: "if without else", schema: { if: { minimum: 5 }, then: { multipleOf: 5 } }, accept: [3, 10], reject: [7] },
  {
    keyword: "unevaluatedProperties",
    schema: {
      allOf: [{ properties: { name: { type: "string" } } }],
      anyOf: [{ properties: { age: { type: "integer" } } }, { properties: { born: { type: "string" } } }],
      if: { properties: { kind: { const: "pet" } }, required: ["kind"] },
      then: { properties: { kind: true, species: { type: "string" } } },
      unevaluatedProperties: false,
    },
    accept: [{ name: "Rex", age: 3, kind: "pet", species: "dog" }, { born: "2020" }],
    reject: [{ species: "dog" }, { name: "Rex", extra: 1 }, { kind: "cat" }],
  },
  {
    keyword: "unevaluatedProperties (a schema, after a failed branch)",
    schema: {
      anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "string" } }, required: ["b"] }],
      unevaluatedProperties: { type: "number" },
    },
    accept: [{ a: "x", b: 2 }, { a: "x", b: "y" }, { z: 1 }],
    reject: [{ a: "x", z: "s" }],
  },
  {
    keyword: "unevaluatedProperties (through $ref and dependentSchemas)",
    schema: {
      $defs: { id: { properties: { id: { type: "string" } } } },
      $ref: "#/$defs/id",
      dependentSchemas: { gift: { properties: { gift: true, message: { type: "string" } } } },
      unevaluatedProperties: false,
    },
    accept: [{ id: "1" }, { id: "1", gift: true, message: "hi" }],
    reject: [{ message: "hi" }, { id: "1", other: 1 }],
  },
  {
    keyword: "unevaluatedProperties (nested: the inner one evaluates every property)",
    schema: {
      allOf: [{ properties: { a: true }, unevaluatedProperties: { type: "number" } }],
      unevaluatedProperties: false,
    },
    accept: [{ a: "x", b: 1 }, {}],
    reject: [{ b: "s" }],
  },
  {
    keyword: "unevaluatedItems",
    schema: { prefixItems: [{ type: "string" }], contains: { type: "number" }, unevaluatedItems: false },
    accept: [
      ["a", 1],
      ["a", 1, 2],
    ],
    reject: [
      ["a", 1, true],
      ["a", "b", 1],
    ],
  },
  {
    keyword: "unevaluatedItems (through allOf)",
    schema: { allOf: [{ prefixItems: [true, true] }], unevaluatedItems: { type: "string" } },
    accept: [
      [1, 2],
      [1, 2, "x"],
    ],
    reject: [[1, 2, 3]],
  },
  {
    keyword: "unevaluatedItems (nested)",
    schema: { anyOf: [{ prefixItems: [true], unevaluatedItems: { type: "number" } }], unevaluatedItems: false },
    accept: [["a", 1, 2], []],
    reject: [["a", "b"]],
  },
  {
    keyword: "$ref, $defs",
    schema: {
      $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node",
      required: ["name"],
    },
    accept: [{ name: "a", kids: [{ kids: [] }] }],
    reject: [{ kids: [] }, { name: "a", kids: [1] }],
  },
  {
    keyword: "$ref to the root",
    schema: { type: "object", properties: { next: { $ref: "#" } }, additionalProperties: false },
    accept: [{ next: { next: {} } }],
    reject: [{ next: { other: 1 } }],
  },
  {
    keyword: "$ref, definitions (draft-07: siblings ignored)",
    draft: "7",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: { s: { type: "string" } },
      $ref: "#/definitions/s",
      minLength: 5,
    },
    accept: ["abc"],
    reject: [1],
  },
  ...(
    [
      ["email", "ada@example.com", "ada@"],
      // What an MCP server's Ajv refuses (hitl-kit accepted them once, then the MCP server failed the call).
      ["email", "o'neil+tag@mail.example.co", "josé@example.com"],
      ["email", "a.b@example.com", "a(b)@example.com"],
      ["email", "a@ex-ample.com", "a@ex_ample.com"],
      ["uri", "https://example.com/a?b=1", "no scheme"],
      ["uri", "urn:isbn:0451450523", "https://example.com/a b"],
      ["uri", "https://example.com/%C3%BC", "https://exämple.com/ü"],
      ["uri", "mailto:ada@example.com", "https://example.com/%zz"],
      ["date", "2024-02-29", "2023-02-29"],
      ["time", "23:59:59.5+01:00", "24:00:00Z"],
      ["date-time", "2024-01-31T10:00:00Z", "2024-01-31T10:00:00"],
      ["uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456"],
      ["ipv4", "192.168.0.1", "256.1.1.1"],
      ["hostname", "api.example.com", "-bad-.example"],
      ["duration", "P1DT2H", "P1H"],
    ] as const
  ).map(([format, valid, invalid]) => ({
    keyword: `format: ${format}`,
    schema: { format },
    accept: [valid, 42],
    reject: [invalid],
    random: false,
  })),
];

/** Every keyword `validateJsonSchema` checks; the cases must use each of them. */
const supported = [
  "type",
  "const",
  "enum",
  "multipleOf",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "required",
  "properties",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "maxProperties",
  "minProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "maxContains",
  "minContains",
  "maxItems",
  "minItems",
  "uniqueItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$defs",
  "definitions",
];

const theirs = (schema: JsonSchema, draft: Case["draft"] = "2020-12") => {
  const validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], draft, false);
  return (value: unknown) => validator.validate(value).valid;
};
const ours = (schema: JsonSchema) => (value: unknown) => validateJsonSchema(schema, value).ok;

/** Every object key and every string and number in a schema, to build values that reach its branches. */
function vocabulary(schema: unknown, words = new Set<string>(), numbers = new Set<number>([0, 1, 2.5, -1])) {
  if (typeof schema === "string") words.add(schema);
  else if (typeof schema === "number") numbers.add(schema);
  else if (Array.isArray(schema)) for (const item of schema) vocabulary(item, words, numbers);
  else if (schema !== null && typeof schema === "object") {
    for (const [key, item] of Object.entries(schema)) {
      words.add(key);
      vocabulary(item, words, numbers);
    }
  }
  return { words: [...words], numbers: [...numbers] };
}

function valuesFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const { words, numbers } = vocabulary(schema);
  const leaf = fc.oneof(
    fc.constantFrom(...words),
    fc.constantFrom(...numbers),
    fc.integer({ min: -5, max: 12 }),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 3 }),
  );
  const { value } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(fc.constantFrom(...words), tie("value"), { maxKeys: 4 }),
  }));
  return value;
}

describe("validateJsonSchema() agrees with @cfworker/json-schema", () => {
  it("has a case for every keyword it checks", () => {
    const used = new Set(cases.flatMap((test) => vocabulary(test.schema).words));
    expect(supported.filter((keyword) => !used.has(keyword))).toEqual([]);
  });

  it.each(cases)("$keyword: accepts and refuses the same values", ({ schema, accept, reject, draft }) => {
    const [mine, maintained] = [ours(schema), theirs(schema, draft)];
    expect(accept.map((value) => [value, mine(value), maintained(value)])).toEqual(
      accept.map((value) => [value, true, true]),
    );
    expect(reject.map((value) => [value, mine(value), maintained(value)])).toEqual(
      reject.map((value) => [value, false, false]),
    );
  });

  it.each(cases.filter((test) => test.random !== false))(
    "$keyword: gives random values the same verdict",
    ({ schema, draft }) => {
      const [mine, maintained] = [ours(schema), theirs(schema, draft)];
      fc.assert(
        fc.property(valuesFor(schema), (value) => mine(value) === maintained(value)),
        { numRuns: 300 },
      );
    },
  );
});
