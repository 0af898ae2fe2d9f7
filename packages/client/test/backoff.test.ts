import { describe, expect, it } from "vitest";
import { backoffDelay } from "../src/backoff.js";

describe("backoffDelay", () => {
  it("doubles from the first wait up to the longest, and never past it", () => {
    const options = { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 };
    expect([0, 1, 2, 3, 4, 60].map((attempt) => backoffDelay(attempt, options))).toEqual([20, 40, 80, 100, 100, 100]);
  });

  it("takes a random share, at most the jitter's, off each wait", () => {
    const options = { initialDelayMs: 100, maxDelayMs: 10_000, jitter: 0.5 };
    const waits = Array.from({ length: 200 }, () => backoffDelay(3, options));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...waits)).toBeLessThanOrEqual(800);
    expect(new Set(waits).size).toBeGreaterThan(100);
  });
});
