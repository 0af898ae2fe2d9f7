import { describe, expect, it } from "vitest";
import { hashForSession, sessionFromHash } from "./use-session-id.js";

describe("the session in the URL hash", () => {
  it("reads a session id, and round-trips one it wrote", () => {
    expect(sessionFromHash("#session=ses_AbC-12_x")).toEqual({ kind: "session", sessionId: "ses_AbC-12_x" });
    expect(sessionFromHash(hashForSession("ses_abc"))).toEqual({ kind: "session", sessionId: "ses_abc" });
    expect(sessionFromHash("")).toEqual({ kind: "none" });
    expect(sessionFromHash("#session=")).toEqual({ kind: "none" });
    expect(sessionFromHash("#other")).toEqual({ kind: "none" });
  });

  it("calls bad percent-encoding and characters no id has malformed, instead of throwing", () => {
    for (const raw of ["%E0%A4%A", "%", "ses_1%20x", "%3Cscript%3E", "a".repeat(101)]) {
      expect(sessionFromHash(`#session=${raw}`)).toEqual({ kind: "malformed", raw });
    }
  });
});
