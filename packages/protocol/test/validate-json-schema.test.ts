// biome-ignore-all lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, in schemas, not thenables
import { describe, expect, it } from "vitest";
import { type JsonSchema, validateJsonSchema } from "../src/index.js";

const issues = (schema: JsonSchema, value: unknown) => validateJsonSchema(schema, value).issues ?? [];
const messages = (schema: JsonSchema, value: unknown) => issues(schema, value).map((issue) => issue.message);
const ok = (schema: JsonSchema, value: unknown) => validateJsonSchema(schema, value).ok;

describe("validateJsonSchema(): types and values", () => {
  it("checks one type, a list of types (nullable) and integer", () => {
    expect(messages({ type: "string" }, 3)).toEqual(['Instance type "number" is invalid. Expected "string".']);
    expect(ok({ type: ["string", "null"] }, null)).toBe(true);
    expect(messages({ type: ["string", "null"] }, [])).toEqual([
      'Instance type "array" is invalid. Expected "string", "null".',
    ]);
    expect(ok({ type: "integer" }, 2)).toBe(true);
    expect(messages({ type: "integer" }, 2.5)).toEqual(['Instance type "number" is invalid. Expected "integer".']);
  });

  it("compares const and enum deeply", () => {
    expect(ok({ const: { a: [1, 2] } }, { a: [1, 2] })).toBe(true);
    expect(messages({ const: "x" }, "y")).toEqual(['Instance does not match "x".']);
    expect(ok({ enum: ["a", { b: 1 }] }, { b: 1 })).toBe(true);
    expect(messages({ enum: ["a", "b"] }, "c")).toEqual(['Instance does not match any of ["a","b"].']);
  });

  it("returns the value itself when it fits", () => {
    const value = { a: 1 };
    expect(validateJsonSchema({ type: "object" }, value)).toEqual({ ok: true, value });
  });
});

describe("validateJsonSchema(): objects", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" } },
    required: ["name"],
    additionalProperties: false,
  };

  it("reports a missing property as Required at its path, and an extra one as unexpected", () => {
    expect(issues(schema, { age: 3, extra: 1 })).toEqual([
      { path: ["name"], message: "Required" },
      { path: ["extra"], message: "Unexpected property" },
    ]);
  });

  it("treats a property whose value is undefined as absent, as JSON does", () => {
    expect(issues(schema, { name: undefined })).toEqual([{ path: ["name"], message: "Required" }]);
    expect(ok(schema, { name: "Ada", age: undefined })).toBe(true);
  });

  it("checks additional properties, pattern properties and property names against their schemas", () => {
    const record = {
      type: "object",
      propertyNames: { pattern: "^[a-z]+$" },
      additionalProperties: { type: "boolean" },
    };
    expect(ok(record, { on: true })).toBe(true);
    expect(issues(record, { on: 1, Off: true })).toEqual([
      { path: ["on"], message: 'Instance type "number" is invalid. Expected "boolean".' },
      { path: ["Off"], message: "String does not match pattern." },
    ]);
    const patterned = { patternProperties: { "^x-": { type: "string" } }, additionalProperties: false };
    expect(ok(patterned, { "x-a": "1" })).toBe(true);
    expect(issues(patterned, { "x-a": 1, y: "" }).map((issue) => issue.path)).toEqual([["x-a"], ["y"]]);
  });

  it("counts properties", () => {
    expect(messages({ minProperties: 1 }, {})).toEqual(["Instance does not have at least 1 properties."]);
    expect(messages({ maxProperties: 1 }, { a: 1, b: 2 })).toEqual(["Instance has more than 1 properties."]);
  });
});

describe("validateJsonSchema(): arrays", () => {
  it("checks every item at its index and the array's size", () => {
    const tags = { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 };
    expect(issues(tags, ["a", 2, "c"])).toEqual([
      { path: [], message: "Array has too many items (3 > 2)." },
      { path: [1], message: 'Instance type "number" is invalid. Expected "string".' },
    ]);
    expect(messages(tags, [])).toEqual(["Array has too few items (0 < 1)."]);
  });

  it("checks tuples written as prefixItems (2020-12) and as an items array (draft-07)", () => {
    const modern = { prefixItems: [{ type: "string" }, { type: "number" }], items: false };
    const draft7 = { items: [{ type: "string" }, { type: "number" }], additionalItems: false };
    for (const tuple of [modern, draft7]) {
      expect(ok(tuple, ["a", 1])).toBe(true);
      expect(issues(tuple, [1, 1, true])).toEqual([
        { path: [0], message: 'Instance type "number" is invalid. Expected "string".' },
        { path: [2], message: "Unexpected item" },
      ]);
    }
  });

  it("finds duplicates, deeply, and checks contains", () => {
    expect(messages({ uniqueItems: true }, [{ a: 1 }, 2, { a: 1 }])).toEqual(["Duplicate items at indexes 0 and 2."]);
    expect(ok({ uniqueItems: true }, [{ a: 1 }, { a: 2 }])).toBe(true);
    expect(ok({ contains: { const: 3 } }, [1, 3])).toBe(true);
    expect(messages({ contains: { const: 3 } }, [1, 2])).toEqual(["Array does not contain item matching schema."]);
  });
});

describe("validateJsonSchema(): numbers and strings", () => {
  it("checks bounds, exclusive bounds (numbers and draft-04 booleans) and multipleOf", () => {
    expect(messages({ minimum: 1, maximum: 3 }, 0)).toEqual(["0 is less than 1."]);
    expect(messages({ minimum: 1, maximum: 3 }, 4)).toEqual(["4 is greater than 3."]);
    expect(messages({ exclusiveMinimum: 0, exclusiveMaximum: 10 }, 10)).toEqual(["10 is greater than or equal to 10."]);
    expect(messages({ exclusiveMinimum: 0 }, 0)).toEqual(["0 is less than or equal to 0."]);
    expect(messages({ minimum: 0, exclusiveMinimum: true }, 0)).toEqual(["0 is less than or equal to 0."]);
    expect(ok({ maximum: 3, exclusiveMaximum: false }, 3)).toBe(true);
    expect(ok({ multipleOf: 0.1 }, 0.3)).toBe(true);
    expect(messages({ multipleOf: 0.1 }, 0.35)).toEqual(["0.35 is not a multiple of 0.1."]);
  });

  it("counts string length in code points", () => {
    expect(ok({ maxLength: 1 }, "👍")).toBe(true);
    expect(messages({ minLength: 3 }, "ab")).toEqual(["String is too short (2 < 3)."]);
    expect(messages({ maxLength: 2 }, "abc")).toEqual(["String is too long (3 > 2)."]);
  });

  it("checks patterns in Unicode mode and ignores a pattern that is not a valid regex", () => {
    expect(ok({ pattern: "^\\p{L}+$" }, "héllo")).toBe(true);
    expect(messages({ pattern: "^\\d+$" }, "12a")).toEqual(["String does not match pattern."]);
    expect(ok({ pattern: "([" }, "anything")).toBe(true);
  });

  it.each([
    ["email", "ada@example.com", "ada@example"],
    ["email", "ada.l+1@mail.example.org", "josé@example.com"],
    ["uri", "https://example.com/a?b=1", "not a url"],
    ["uri", "https://example.com/%C3%BC", "https://example.com/a b"],
    ["url", "mailto:ada@example.com", "/relative/path"],
    ["date", "2024-02-29", "2023-02-29"],
    ["time", "23:59:59.5+01:00", "24:00:00"],
    ["date-time", "2024-01-31T10:00:00Z", "2024-01-31T10:00:00"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456"],
    ["ipv4", "192.168.0.1", "256.1.1.1"],
  ])("checks format %s", (format, valid, invalid) => {
    expect(ok({ type: "string", format }, valid)).toBe(true);
    expect(messages({ type: "string", format }, invalid)).toEqual([`String does not match format "${format}".`]);
  });

  it.each([
    ["hostname", "api.example.com", "-bad-.example"],
    ["duration", "P1DT2H", "P1H"],
  ])("checks format %s", (format, valid, invalid) => {
    expect(ok({ type: "string", format }, valid)).toBe(true);
    expect(messages({ type: "string", format }, invalid)).toEqual([`String does not match format "${format}".`]);
  });

  it("lets a keyword JSON Schema does not define pass, as an annotation", () => {
    expect(ok({ "x-widget": "slider", type: "number" }, 3)).toBe(true);
  });
});

describe("validateJsonSchema(): conditions and dependencies", () => {
  const shipping = {
    type: "object",
    properties: { method: { enum: ["post", "pickup"] }, address: { type: "string" }, store: { type: "string" } },
    if: { properties: { method: { const: "post" } }, required: ["method"] },
    then: { required: ["address"] },
    else: { required: ["store"] },
  };

  it("applies then when if holds, else when it does not", () => {
    expect(ok(shipping, { method: "post", address: "1 Main St" })).toBe(true);
    expect(issues(shipping, { method: "post" })).toEqual([{ path: ["address"], message: "Required" }]);
    expect(issues(shipping, { method: "pickup" })).toEqual([{ path: ["store"], message: "Required" }]);
    expect(ok({ if: { minimum: 5 }, then: { multipleOf: 5 } }, 3)).toBe(true);
  });

  it("requires the names dependentRequired (or dependencies' lists) name when their key is present", () => {
    const card = { dependentRequired: { card: ["expiry", "cvc"] } };
    expect(ok(card, { name: "Ada" })).toBe(true);
    expect(issues(card, { card: "4242", cvc: "1" })).toEqual([{ path: ["expiry"], message: "Required" }]);
    expect(issues({ dependencies: { card: ["expiry"] } }, { card: "4242" })).toEqual([
      { path: ["expiry"], message: "Required" },
    ]);
  });

  it("applies dependentSchemas (or dependencies' schemas) when their key is present", () => {
    const gift = { dependentSchemas: { gift: { required: ["message"], properties: { message: { maxLength: 5 } } } } };
    expect(ok(gift, {})).toBe(true);
    expect(issues(gift, { gift: true, message: "Happy birthday" })).toEqual([
      { path: ["message"], message: "String is too long (14 > 5)." },
    ]);
    expect(issues({ dependencies: { gift: { required: ["message"] } } }, { gift: true })).toEqual([
      { path: ["message"], message: "Required" },
    ]);
  });
});

describe("validateJsonSchema(): unevaluated properties and items", () => {
  it("refuses properties no keyword evaluated, looking into allOf, anyOf, oneOf, if/then and $ref", () => {
    const named = {
      $defs: { id: { properties: { id: { type: "string" } } } },
      allOf: [{ properties: { name: { type: "string" } } }],
      anyOf: [{ properties: { age: { type: "integer" } } }, { properties: { born: { type: "string" } } }],
      if: { properties: { kind: { const: "pet" } }, required: ["kind"] },
      then: { properties: { kind: true, species: { type: "string" } } },
      $ref: "#/$defs/id",
      unevaluatedProperties: false,
    };
    expect(ok(named, { id: "1", name: "Rex", age: 3, kind: "pet", species: "dog" })).toBe(true);
    expect(issues(named, { id: "1", species: "dog" })).toEqual([{ path: ["species"], message: "Unexpected property" }]);
  });

  it("does not count what a failing anyOf branch or not evaluated", () => {
    const schema = {
      anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "string" } }, required: ["b"] }],
      not: { properties: { c: true }, required: ["c"] },
      unevaluatedProperties: { type: "number" },
    };
    // b fails the second branch, so only unevaluatedProperties checks it: a number passes.
    expect(ok(schema, { a: "x", b: 2 })).toBe(true);
    expect(ok(schema, { a: "x", b: "y" })).toBe(true);
    expect(issues(schema, { a: "x", z: "s" })).toEqual([
      { path: ["z"], message: 'Instance type "string" is invalid. Expected "number".' },
    ]);
  });

  it("refuses items no keyword evaluated, counting prefixItems, items and contains", () => {
    const tuple = { prefixItems: [{ type: "string" }], contains: { type: "number" }, unevaluatedItems: false };
    expect(ok(tuple, ["a", 1, 2])).toBe(true);
    expect(issues(tuple, ["a", 1, true])).toEqual([{ path: [2], message: "Unexpected item" }]);
    expect(ok({ allOf: [{ items: { type: "number" } }], unevaluatedItems: false }, [1, 2])).toBe(true);
  });

  it("counts matches for minContains and maxContains", () => {
    const some = { contains: { type: "number" }, minContains: 2, maxContains: 3 };
    expect(ok(some, [1, "a", 2])).toBe(true);
    expect(messages(some, [1, "a"])).toEqual(["Array contains too few items matching schema (1 < 2)."]);
    expect(messages(some, [1, 2, 3, 4])).toEqual(["Array contains too many items matching schema (4 > 3)."]);
    expect(ok({ contains: { type: "number" }, minContains: 0 }, ["a"])).toBe(true);
  });
});

describe("validateJsonSchema(): composition and references", () => {
  it("explains a value that matches no branch of anyOf, once per distinct issue", () => {
    const either = { anyOf: [{ type: "string" }, { type: "string", minLength: 2 }] };
    expect(ok(either, "a")).toBe(true);
    expect(messages(either, 3)).toEqual([
      "Instance does not match any subschemas.",
      'Instance type "number" is invalid. Expected "string".',
    ]);
  });

  it("requires exactly one oneOf branch, every allOf branch, and no match for not", () => {
    const one = { oneOf: [{ type: "number" }, { type: "integer" }] };
    expect(ok(one, 1.5)).toBe(true);
    expect(messages(one, 1)).toEqual(["Instance does not match exactly one subschema (2 matches)."]);
    expect(messages({ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 3)).toEqual(["3 is greater than 2."]);
    expect(messages({ not: { type: "null" } }, null)).toEqual(['Instance matched "not" schema.']);
  });

  it("resolves local $refs to $defs, definitions and the root, recursively", () => {
    const tree = {
      $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#" } } } } },
      $ref: "#/$defs/node",
      required: ["name"],
    };
    expect(ok(tree, { name: "a", kids: [{ name: "b", kids: [] }] })).toBe(true);
    expect(issues(tree, { name: "a", kids: [{ kids: [] }] })).toEqual([
      { path: ["kids", 0, "name"], message: "Required" },
    ]);
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", definitions: { s: { type: "string" } } };
    expect(ok({ ...draft7, $ref: "#/definitions/s", minLength: 5 }, "abc")).toBe(true);
    expect(ok({ $defs: { s: { type: "string" } }, $ref: "#/$defs/s", minLength: 5 }, "abc")).toBe(false);
  });

  it("checks nothing for a $ref it cannot resolve here (the server's check decides)", () => {
    expect(ok({ $ref: "https://example.com/schema.json" }, 3)).toBe(true);
  });
});

describe("validateJsonSchema(): what any caller may send", () => {
  // Sizes at which a check quadratic in the input runs for half a minute or more (the test then
  // fails on its timeout) and a linear one for milliseconds: a hang detector, not a speed target.
  it("checks a date-time in one pass, even a long string of separators that cannot match", () => {
    const schema: JsonSchema = { type: "string", format: "date-time" };
    expect(ok(schema, `${"t".repeat(200_000)}\n`)).toBe(false);
    expect(ok(schema, `${" ".repeat(200_000)}x`)).toBe(false);
    expect(ok(schema, "2024-01-31 10:00:00+01:00")).toBe(true);
  });

  it("finds duplicate items in one pass, with keys in any order equal", () => {
    const many = Array.from({ length: 30_000 }, (_, index) => ({ id: index, tag: "x" }));
    expect(messages({ uniqueItems: true }, [...many, { tag: "x", id: 0 }])).toEqual([
      "Duplicate items at indexes 0 and 30000.",
    ]);
    expect(ok({ uniqueItems: true }, many)).toBe(true);
    expect(ok({ uniqueItems: true }, [1, "1", [1], { a: 1, b: undefined }, { a: 1 }])).toBe(false);
  });

  it("reports at most 50 issues, and how many more there were", () => {
    const found = issues({ type: "array", items: { type: "integer" } }, Array.from({ length: 200 }, String));
    expect(found).toHaveLength(51);
    expect(found.at(-1)).toEqual({ path: [], message: "…and 150 more issues." });
  });
});
