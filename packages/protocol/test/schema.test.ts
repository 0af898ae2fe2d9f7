import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonSchema, toJsonSchema, validate, validateJsonSchema } from "../src/index.js";

const zodAnswer = z.object({ email: z.email(), tags: z.array(z.string()).max(2) });
const valibotAnswer = v.object({
  email: v.pipe(v.string(), v.email()),
  tags: v.pipe(v.array(v.string()), v.maxLength(2)),
});
const plainAnswer = jsonSchema<{ email: string; tags: string[] }>({
  type: "object",
  properties: {
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
  },
  required: ["email", "tags"],
  additionalProperties: false,
});

const flavours = [
  ["zod", zodAnswer],
  ["valibot (Standard Schema)", valibotAnswer],
  ["plain JSON Schema", plainAnswer],
] as const;

describe.each(flavours)("validate() with %s", (_name, schema) => {
  it("returns the value when it fits", async () => {
    expect(await validate(schema, { email: "a@b.co", tags: ["x"] })).toEqual({
      ok: true,
      value: { email: "a@b.co", tags: ["x"] },
    });
  });

  it("lists every issue with its path", async () => {
    const result = await validate(schema, { email: "nope", tags: ["x", 2] });
    expect(result.ok).toBe(false);
    const paths = result.issues?.map((issue) => issue.path.join("."));
    expect(paths).toContain("email");
    expect(paths).toContain("tags.1");
    for (const issue of result.issues ?? []) expect(issue.message).toEqual(expect.any(String));
  });

  it("reports a missing field at the field's path", async () => {
    const result = await validate(schema, { tags: [] });
    expect(result.issues?.map((issue) => issue.path)).toContainEqual(["email"]);
  });
});

describe("toJsonSchema()", () => {
  it("converts zod to JSON Schema that validates the same values", () => {
    const converted = toJsonSchema(zodAnswer);
    expect(converted).toMatchObject({ type: "object", required: ["email", "tags"] });
    expect(validateJsonSchema(converted, { email: "a@b.co", tags: [] }).ok).toBe(true);
    expect(validateJsonSchema(converted, { email: "a@b.co", tags: ["a", "b", "c"] }).ok).toBe(false);
  });

  it("converts a Standard JSON Schema wrapper such as valibot's", () => {
    const converted = toJsonSchema(toStandardJsonSchema(valibotAnswer));
    expect(converted).toMatchObject({ type: "object", properties: { email: { type: "string", format: "email" } } });
  });

  it("names the fix when a Standard Schema cannot convert itself", () => {
    expect(() => toJsonSchema(valibotAnswer)).toThrow(/toStandardJsonSchema from @valibot\/to-json-schema/);
  });

  it("returns a plain JSON Schema as it is", () => {
    expect(toJsonSchema(plainAnswer)).toBe(plainAnswer);
  });
});

describe("validateJsonSchema()", () => {
  it("flags unexpected properties and wrong types with readable messages", () => {
    const result = validateJsonSchema(plainAnswer, { email: 3, tags: [], extra: true });
    expect(result.issues).toEqual([
      { path: ["email"], message: 'Instance type "number" is invalid. Expected "string".' },
      { path: ["extra"], message: "Unexpected property" },
    ]);
  });

  it("honours the draft named by $schema", () => {
    const draft4 = {
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "number",
      maximum: 3,
      exclusiveMaximum: true,
    };
    expect(validateJsonSchema(draft4, 3).ok).toBe(false);
    expect(validateJsonSchema(draft4, 2).ok).toBe(true);
  });
});
