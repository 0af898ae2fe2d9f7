import { act, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useKeptDraft } from "./use-kept-draft.js";

afterEach(() => sessionStorage.clear());

describe("useKeptDraft", () => {
  it("keeps each chat's draft across a new mount (a reload), and forgets an empty one", () => {
    const first = renderHook(() => useKeptDraft("ses_a"));
    act(() => first.result.current[1]("refund 15"));
    first.unmount();
    expect(renderHook(() => useKeptDraft("ses_a")).result.current[0]).toBe("refund 15");
    expect(renderHook(() => useKeptDraft("ses_b")).result.current[0]).toBe("");

    const again = renderHook(() => useKeptDraft("ses_a"));
    act(() => again.result.current[1](""));
    expect(sessionStorage.getItem("hitl-chat:draft:ses_a")).toBeNull();
  });

  it("keeps a chat without a session in memory only", () => {
    const hook = renderHook(() => useKeptDraft(undefined));
    act(() => hook.result.current[1]("hello"));
    expect(hook.result.current[0]).toBe("hello");
    expect(sessionStorage.length).toBe(0);
  });
});
