import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchema, validateJsonSchema } from "../src/index.js";

// The browser checks answers against the JSON Schema zod writes for a tool; it must agree with zod.
describe("validateJsonSchema() with schemas zod writes", () => {
  const Tree: z.ZodType<{ name: string; kids?: unknown[] }> = z.object({
    name: z.string(),
    get kids() {
      return z.array(Tree).optional();
    },
  });
  const answer = z.object({
    email: z.email(),
    when: z.iso.datetime(),
    count: z.int().min(1),
    step: z.number().gt(0).lt(10).multipleOf(0.5),
    pair: z.tuple([z.string(), z.number()]),
    flags: z.record(z.string().regex(/^[a-z]+$/), z.boolean()),
    note: z.string().nullable(),
    pick: z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("a") }),
      z.object({ kind: z.literal("b"), size: z.enum(["s", "m"]) }),
    ]),
    tree: Tree,
    strict: z.strictObject({ a: z.string() }),
  });
  const good = {
    email: "ada@example.com",
    when: "2024-01-31T10:00:00Z",
    count: 2,
    step: 2.5,
    pair: ["a", 1],
    flags: { on: true },
    note: null,
    pick: { kind: "b", size: "m" },
    tree: { name: "root", kids: [{ name: "leaf" }] },
    strict: { a: "x" },
  };

  it("accepts what zod accepts", () => {
    expect(answer.safeParse(good).success).toBe(true);
    expect(validateJsonSchema(toJsonSchema(answer), good)).toEqual({ ok: true, value: good });
  });

  it.each([
    ["a bad email", { ...good, email: "ada" }, ["email"]],
    ["a fraction for an int", { ...good, count: 1.5 }, ["count"]],
    ["an exclusive bound", { ...good, step: 10 }, ["step"]],
    ["a step off the grid", { ...good, step: 2.2 }, ["step"]],
    ["a long tuple", { ...good, pair: ["a", 1, 2] }, ["pair"]],
    ["a bad record key", { ...good, flags: { ON: true } }, ["flags", "ON"]],
    ["a wrong branch", { ...good, pick: { kind: "b" } }, ["pick"]],
    ["a deep tree error", { ...good, tree: { name: "root", kids: [{}] } }, ["tree", "kids", 0, "name"]],
    ["an extra key on a strict object", { ...good, strict: { a: "x", b: 1 } }, ["strict", "b"]],
    ["a missing field", { ...good, note: undefined }, ["note"]],
  ])("refuses what zod refuses: %s, at the same place", (_name, value, path) => {
    expect(answer.safeParse(value).success).toBe(false);
    const result = validateJsonSchema(toJsonSchema(answer), value);
    expect(result.ok).toBe(false);
    expect(result.issues?.map((issue) => issue.path)).toContainEqual(path);
  });
});
