import { describe, expect, it } from "vitest";
import { isUnreachable } from "../src/store/postgres-errors.js";

const failure = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("isUnreachable", () => {
  it.each([
    ["57P01", "terminating connection due to administrator command"],
    ["57P05", "terminating connection due to idle-session timeout"],
    ["25P03", "terminating connection due to idle-in-transaction timeout"],
    ["57014", "canceling statement due to statement timeout"],
    ["08006", "connection failure"],
    ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"],
  ])("takes %s (%s) for a database out of reach, worth trying again", (code, message) => {
    expect(isUnreachable(failure(code, message))).toBe(true);
  });

  it.each([
    ["23505", "duplicate key value violates unique constraint"],
    ["42501", "permission denied for schema hitl"],
  ])("takes %s (%s) for the statement's own failure", (code, message) => {
    expect(isUnreachable(failure(code, message))).toBe(false);
  });
});
