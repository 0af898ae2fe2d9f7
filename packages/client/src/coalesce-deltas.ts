import type { ProtocolEvent } from "@hitl-kit/protocol";

type DeltaEvent = Extract<ProtocolEvent, { type: "text.delta" | "reasoning.delta" }>;

const isDelta = (event: ProtocolEvent): event is DeltaEvent =>
  event.type === "text.delta" || event.type === "reasoning.delta";

/**
 * Joins each run of consecutive deltas to one message's text (or reasoning) into one delta
 * carrying the run's last seq, and drops the events at or below `lastSeq` (already applied).
 * Applying the result folds to the same state as applying every event, but a frame's
 * thousand deltas cost one copy of the transcript's message list, not a thousand, and the
 * text grows by one concatenation.
 */
export function coalesceDeltas(events: readonly ProtocolEvent[], lastSeq: number): ProtocolEvent[] {
  const out: ProtocolEvent[] = [];
  let applied = lastSeq;
  let pieces: string[] = [];
  const closeRun = () => {
    const last = out.at(-1);
    if (pieces.length > 1 && last && isDelta(last)) out[out.length - 1] = { ...last, delta: pieces.join("") };
    pieces = [];
  };
  for (const event of events) {
    if (event.seq <= applied) continue;
    applied = event.seq;
    const last = out.at(-1);
    if (isDelta(event) && last && isDelta(last) && last.type === event.type && last.messageId === event.messageId) {
      pieces.push(event.delta);
      out[out.length - 1] = event;
      continue;
    }
    closeRun();
    out.push(event);
    if (isDelta(event)) pieces.push(event.delta);
  }
  closeRun();
  return out;
}
