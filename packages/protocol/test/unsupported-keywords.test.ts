// biome-ignore-all lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, in schemas, not thenables
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalAnswerSchema, askQuestion, defineClientTool, defineTool, type JsonSchema } from "../src/index.js";
import { findUnsupportedKeyword } from "../src/internal.js";

const client = (answerSchema: unknown, inputSchema: unknown = {}) =>
  defineClientTool({
    name: "pick",
    description: "d",
    inputSchema: inputSchema as JsonSchema,
    answerSchema: answerSchema as JsonSchema,
  });

describe("findUnsupportedKeyword", () => {
  it.each([
    ["$dynamicRef", { properties: { a: { $dynamicRef: "#node" } } }, "#/properties/a"],
    ["$dynamicAnchor", { $defs: { node: { $dynamicAnchor: "node" } } }, "#/$defs/node"],
    ["$recursiveRef", { items: { $recursiveRef: "#" } }, "#/items"],
    ["$recursiveAnchor", { $recursiveAnchor: true }, "#"],
    ["$anchor", { anyOf: [{ $anchor: "a" }] }, "#/anyOf/0"],
    ["$vocabulary", { $vocabulary: {} }, "#"],
    ["$id", { properties: { a: { $id: "https://example.com/a" } } }, "#/properties/a"],
    ["$ref", { $ref: "https://example.com/schema.json" }, "#"],
    ["$ref", { properties: { "a/b": { $ref: "#/$defs/missing" } } }, "#/properties/a~1b"],
    ["$ref", { $ref: "#anchor" }, "#"],
    ["format", { prefixItems: [{ format: "phone" }] }, "#/prefixItems/0"],
    ["pattern", { if: { pattern: "([" } }, "#/if"],
    ["pattern", { patternProperties: { "(": true } }, "#"],
    ["type", { dependentSchemas: { a: { type: "strng" } } }, "#/dependentSchemas/a"],
  ])("finds %s in %j", (keyword, schema, at) => {
    expect(findUnsupportedKeyword(schema)).toMatchObject({ keyword, at, reason: expect.any(String) });
  });

  it.each([
    [
      "a root $id and $schema",
      { $id: "https://example.com/a", $schema: "https://json-schema.org/draft/2020-12/schema" },
    ],
    [
      "refs into the document",
      { $defs: { a: { type: "string" } }, properties: { a: { $ref: "#/$defs/a" }, b: { $ref: "#" } } },
    ],
    ["a format it checks", { format: "date-time" }],
    ["an unknown format with a pattern that checks it", { format: "e164", pattern: "^\\+[1-9]\\d{6,14}$" }],
    [
      "annotations and vendor keywords",
      { title: "T", description: "D", examples: [1], "x-order": 2, deprecated: true },
    ],
    [
      "every keyword it checks",
      {
        if: { required: ["a"] },
        then: { dependentRequired: { a: ["b"] } },
        else: { dependentSchemas: { c: { unevaluatedProperties: false } } },
        prefixItems: [{ contains: { const: 1 }, minContains: 1, maxContains: 2 }],
        unevaluatedItems: false,
      },
    ],
  ])("accepts %s", (_case, schema) => {
    expect(findUnsupportedKeyword(schema as JsonSchema)).toBeUndefined();
  });
});

describe("tools are refused when the browser could not check their answers as the server does", () => {
  it("names the tool, the keyword, where it is and what to do", () => {
    expect(() => client({ type: "object", properties: { when: { $dynamicRef: "#t" } } })).toThrow(
      'The answer schema of pick uses "$dynamicRef" at #/properties/when, which the browser and the server could not check alike: dynamic references are not supported; use a $ref to #/$defs/….',
    );
    expect(() => client({ properties: { phone: { type: "string", format: "phone" } } })).toThrow(
      /uses "format" at #\/properties\/phone.*the format "phone" is not one hitl-kit checks; add a pattern/,
    );
  });

  it("checks a plain JSON Schema input schema too, which the server checks with the same validator", () => {
    expect(() => client({}, { $ref: "other.json" })).toThrow(/^The input schema of pick uses "\$ref" at #/);
    expect(() =>
      defineTool({ name: "lookup", description: "d", inputSchema: { properties: { q: { type: "text" } } } }),
    ).toThrow(/^The input schema of lookup uses "type" at #\/properties\/q/);
  });

  it("checks the JSON Schema a zod answer schema becomes, and says when it cannot become one", () => {
    expect(() => client(z.object({ token: z.jwt() }))).toThrow(
      /^The answer schema of pick uses "format" at #\/properties\/token/,
    );
    expect(() => client(z.object({ when: z.date() }))).toThrow(
      /^The answer schema of pick cannot be sent to the browser as JSON Schema: /,
    );
    expect(() => client(v.object({ a: v.string() }))).toThrow(/toStandardJsonSchema from @valibot\/to-json-schema/);
    expect(client(toStandardJsonSchema(v.object({ a: v.string() }))).name).toBe("pick");
  });

  it("accepts the built-in schemas", () => {
    expect(findUnsupportedKeyword(approvalAnswerSchema)).toBeUndefined();
    expect(askQuestion().name).toBe("ask_question");
    expect(client(z.object({ email: z.email(), at: z.iso.datetime(), n: z.int().multipleOf(5) })).name).toBe("pick");
  });
});
