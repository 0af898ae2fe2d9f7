import { describe, expect, it } from "vitest";
import { ProtocolError } from "../src/errors.js";

describe("ProtocolError", () => {
  it("is recognised across two copies of the package, and a subclass only by its own class", async () => {
    // A second module instance stands in for a second copy (an app on another version).
    const secondCopy = "../src/errors.js?second-copy";
    const copy: typeof import("../src/errors.js") = await import(/* @vite-ignore */ secondCopy);
    expect(copy.ProtocolError).not.toBe(ProtocolError);
    const theirs = new copy.ProtocolError("turn_running", "A turn is running.");
    expect(theirs).toBeInstanceOf(ProtocolError);
    expect(new ProtocolError("not_found", "No such session.")).toBeInstanceOf(copy.ProtocolError);
    class ApiError extends ProtocolError {}
    expect(new ApiError("network", "Offline.")).toBeInstanceOf(ProtocolError);
    expect(theirs).not.toBeInstanceOf(ApiError);
    expect(new Error("plain")).not.toBeInstanceOf(ProtocolError);
    for (const value of [null, undefined, "ProtocolError", { code: "internal" }]) {
      expect(value instanceof ProtocolError).toBe(false);
    }
  });
});
