import { describe, expect, it } from "vitest";
import { questionChanged, reasonCodeOf, serverStopped, stopReasons, toolEnded } from "../src/runtime/stop-reasons.js";
import { outOfTimeReason } from "../src/runtime/tool-timeout.js";

// Each reason the runtime gives when it cancels a request has a code, so a UI can say it in
// the person's language; a reason a tool gave itself has none. (A failed turn's cancels are
// given `turn_failed` where they are made, since their reason is the failure's message.)
describe("reasonCodeOf", () => {
  it("codes every reason the runtime writes, and no other", () => {
    expect(
      [
        stopReasons.message,
        stopReasons.cancel,
        stopReasons.delete,
        serverStopped,
        questionChanged,
        toolEnded.error,
        toolEnded.ok,
        outOfTimeReason(30_000),
        outOfTimeReason(60),
        "The booking closed.",
        undefined,
      ].map(reasonCodeOf),
    ).toEqual([
      "new_message",
      "stopped",
      "session_deleted",
      "server_stopped",
      "question_changed",
      "tool_failed",
      "tool_finished",
      "tool_timeout",
      "tool_timeout",
      undefined,
      undefined,
    ]);
  });
});
