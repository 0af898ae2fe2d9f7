import { type EventInput, emptySnapshot, type ProtocolEvent, reduceSession } from "@hitl-kit/protocol";
import { describe, expect, it } from "vitest";
import { coalesceDeltas } from "../src/coalesce-deltas.js";

function recording(...inputs: EventInput[]): ProtocolEvent[] {
  return inputs.map((input, index) => ({ ...input, seq: index + 1, sessionId: "s", at: "now" }) as ProtocolEvent);
}

const events = recording(
  { type: "turn.started", turnId: "t", cause: "message" },
  { type: "message.started", messageId: "a", role: "assistant" },
  { type: "text.delta", messageId: "a", delta: "one " },
  { type: "text.delta", messageId: "a", delta: "two " },
  { type: "reasoning.delta", messageId: "a", delta: "hmm " },
  { type: "reasoning.delta", messageId: "a", delta: "yes" },
  { type: "text.delta", messageId: "a", delta: "three" },
  { type: "message.completed", messageId: "a" },
  { type: "message.started", messageId: "b", role: "assistant" },
  { type: "text.delta", messageId: "b", delta: "x" },
  { type: "text.delta", messageId: "b", delta: "y" },
  { type: "text.delta", messageId: "b", delta: "z" },
);
const fold = (list: readonly ProtocolEvent[], from = emptySnapshot("s")) => list.reduce(reduceSession, from);

describe("coalesceDeltas", () => {
  it("joins runs of deltas to one part and folds to the same state as every event", () => {
    const joined = coalesceDeltas(events, 0);
    expect(joined.map((event) => [event.seq, event.type === "text.delta" ? event.delta : event.type])).toEqual([
      [1, "turn.started"],
      [2, "message.started"],
      [4, "one two "],
      [6, "reasoning.delta"],
      [7, "three"],
      [8, "message.completed"],
      [9, "message.started"],
      [12, "xyz"],
    ]);
    expect(fold(joined)).toEqual(fold(events));
  });

  it("drops what is at or below lastSeq, and repeats within the batch", () => {
    const applied = fold(events.slice(0, 3));
    const batch = [...events.slice(1, 5), events[3]!, ...events.slice(5)];
    const joined = coalesceDeltas(batch, applied.lastSeq);
    expect(joined[0]?.seq).toBe(4);
    expect(fold(joined, applied)).toEqual(fold(events));
  });
});
