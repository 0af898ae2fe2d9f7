import type { EventInput } from "@hitl-kit/protocol";
import { now, percentile } from "../timer.js";
import { startRuntime } from "./fixture.js";

/** Timings of reads of one session as its history grows. */
export interface HistoryTimings {
  /** Per session length in events: the median time of `GET /sessions/:id` and of opening its stream at its end. */
  reads: { events: number; snapshotMs: number; subscribeMs: number; snapshotSpread: [number, number] }[];
  /** The answer cycle (respond → parked again) over the first and the last 50 of 1,000 tool calls in one session. */
  cycle: { firstMs: number; lastMs: number };
}

const lengths = [1_000, 10_000, 50_000];
const runs = 15;

/** Writes a realistic history of about `events` events: turns of a user message and a reply streamed in 20 deltas. */
async function grow(bench: ReturnType<typeof startRuntime>, sessionId: string, events: number) {
  const { store } = bench;
  let written = 1;
  for (let turn = 0; written < events; turn++) {
    const user = `msg_u${turn}`;
    const reply = `msg_a${turn}`;
    const batch: EventInput[] = [
      { type: "turn.started", turnId: `turn_${turn}`, cause: "message" },
      { type: "message.started", messageId: user, role: "user" },
      { type: "text.delta", messageId: user, delta: `Question number ${turn}?` },
      { type: "message.completed", messageId: user },
      { type: "message.started", messageId: reply, role: "assistant" },
    ];
    await store.write(sessionId, { events: batch });
    for (let delta = 0; delta < 20; delta++) {
      await store.write(sessionId, { events: [{ type: "text.delta", messageId: reply, delta: `word${delta} ` }] });
    }
    await store.write(sessionId, {
      events: [
        { type: "message.completed", messageId: reply },
        { type: "turn.completed", turnId: `turn_${turn}` },
      ],
    });
    written += batch.length + 22;
  }
}

/** Reads of a session at 1k, 10k and 50k events, and the answer cycle at the start and the end of 1,000 calls. */
export async function measureHistory(): Promise<HistoryTimings> {
  const bench = startRuntime();
  const reads: HistoryTimings["reads"] = [];
  for (const events of lengths) {
    const { sessionId } = await bench.runtime.createSession({ owner: "bench" });
    await grow(bench, sessionId, events);
    const lastSeq = (await bench.store.getSession(sessionId))!.lastSeq;
    const snapshot: number[] = [];
    const subscribe: number[] = [];
    for (let run = 0; run < runs + 3; run++) {
      let start = now();
      await bench.call("GET", `/sessions/${sessionId}`);
      const snapshotMs = now() - start;
      start = now();
      const abort = new AbortController();
      const response = await bench.handler(
        new Request(`http://127.0.0.1/api/agent/sessions/${sessionId}/events`, {
          headers: { "last-event-id": String(lastSeq) },
          signal: abort.signal,
        }),
      );
      const reader = response.body!.getReader();
      await reader.read(); // the stream's first frame: it is open, caught up
      const subscribeMs = now() - start;
      abort.abort();
      await reader.cancel();
      if (run < 3) continue; // warm-up
      snapshot.push(snapshotMs);
      subscribe.push(subscribeMs);
    }
    reads.push({
      events: lastSeq,
      snapshotMs: percentile(snapshot, 0.5),
      subscribeMs: percentile(subscribe, 0.5),
      snapshotSpread: [Math.min(...snapshot), Math.max(...snapshot)],
    });
  }

  const sessionId = await bench.park();
  await bench.runtime.idle();
  const cycles: number[] = [];
  for (let call = 0; call < 1_000; call++) {
    const [request] = (await bench.runtime.getSnapshot(sessionId)).pending;
    const start = now();
    await bench.call("POST", `/sessions/${sessionId}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { templateId: "calm" } }],
    });
    await bench.runtime.idle();
    cycles.push(now() - start);
  }
  await bench.close();
  return {
    reads,
    cycle: { firstMs: percentile(cycles.slice(0, 50), 0.5), lastMs: percentile(cycles.slice(-50), 0.5) },
  };
}
