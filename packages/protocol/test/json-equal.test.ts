import { describe, expect, it } from "vitest";
import { jsonEqual } from "../src/internal.js";

describe("jsonEqual", () => {
  it("compares objects by their keys in any order, and arrays item by item in order", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
  });

  it("treats a key whose value is undefined as absent, as JSON does", () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });

  it("tells arrays from objects, null from objects, and numbers from strings", () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ 0: "a" }, ["a"])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, "1")).toBe(false);
    expect(jsonEqual(null, null)).toBe(true);
  });
});
