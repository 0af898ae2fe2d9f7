import { describe, expect, it } from "vitest";
import { emptySnapshot, type ProtocolEvent, parseSnapshot, reduceSession } from "../src/index.js";
import { everyEventType } from "./fixtures.js";

const fold = (events: ProtocolEvent[]) => events.reduce(reduceSession, emptySnapshot("s_1"));
/** When the fixture's events happened: each message's `at` is its start's. */
const at = everyEventType[0]!.at;

describe("reduceSession", () => {
  it("folds a parked and answered turn into messages, parts and status", () => {
    const parked = fold(everyEventType.slice(0, 12));
    expect(parked.status).toBe("waiting");
    expect(parked.pending.map((request) => request.requestId)).toEqual(["r_1"]);
    expect(parked.messages).toEqual([
      { id: "m_user", role: "user", status: "complete", parts: [{ type: "text", text: "make me a poster" }], at },
      {
        id: "m_1",
        role: "assistant",
        status: "streaming",
        at,
        parts: [
          { type: "reasoning", text: "They want a poster." },
          { type: "text", text: "Pick a template." },
          {
            type: "tool",
            state: "awaiting-input",
            requestId: "r_1",
            toolCallId: "call_1",
            toolName: "pick_template",
            input: { templates: [{ id: "a" }, { id: "b" }] },
          },
        ],
      },
    ]);

    const answered = fold(everyEventType.slice(0, 17));
    expect(answered.status).toBe("idle");
    expect(answered.pending).toEqual([]);
    expect(answered.messages[1]?.parts[2]).toMatchObject({ state: "done", outcome: "ok", output: { templateId: "b" } });
    expect(answered.resolved).toEqual([
      { request: parked.pending[0], resolution: { action: "accept", value: { templateId: "b" } } },
    ]);
    expect(parseSnapshot(answered)).toEqual(answered);
  });

  it("keeps the key a person's message was sent with, so its client finds it in the history", () => {
    const keyed = everyEventType.map((event) =>
      event.type === "message.started" && event.role === "user" ? { ...event, idempotencyKey: "k-1" } : event,
    );
    const snapshot = fold(keyed.slice(0, 12));
    expect(snapshot.messages[0]).toEqual({
      id: "m_user",
      role: "user",
      status: "complete",
      parts: [{ type: "text", text: "make me a poster" }],
      idempotencyKey: "k-1",
      at,
    });
    expect(snapshot.messages[1]).not.toHaveProperty("idempotencyKey");
    expect(parseSnapshot(snapshot)).toEqual(snapshot);
  });

  it("records a failed turn's error and clears it when the next turn starts", () => {
    const failed = fold(everyEventType.slice(0, 19));
    expect(failed.error).toEqual({ code: "model_error", message: "overloaded" });
    const next = fold(everyEventType);
    expect(next.error).toBeUndefined();
    expect(next.status).toBe("idle");
    expect(next.lastSeq).toBe(24);
  });

  it("drops an abandoned message and keeps every other message as it was", () => {
    const before = fold(everyEventType.slice(0, 23));
    expect(before.messages.at(-1)).toMatchObject({ id: "m_2", status: "streaming", parts: [{ text: "Half a sen" }] });
    const after = reduceSession(before, everyEventType[23]!);
    expect(after.messages.map((message) => message.id)).toEqual(["m_user", "m_1"]);
    expect(after.messages[1]).toBe(before.messages[1]);
    const unknown = { ...everyEventType[23]!, seq: 25, messageId: "m_9" } as ProtocolEvent;
    expect(reduceSession(after, unknown).messages).toBe(after.messages);
  });

  it("applies each event once: a replayed seq returns the same snapshot", () => {
    const state = fold(everyEventType.slice(0, 9));
    for (const event of everyEventType.slice(0, 9)) expect(reduceSession(state, event)).toBe(state);
    expect(fold([...everyEventType, ...everyEventType])).toEqual(fold(everyEventType));
  });

  it("keeps the identity of every message a delta does not touch", () => {
    const before = fold(everyEventType.slice(0, 8));
    const after = reduceSession(before, everyEventType[8] as ProtocolEvent);
    expect(after.messages[0]).toBe(before.messages[0]);
    expect(after.messages[1]).not.toBe(before.messages[1]);
    expect(after.pending).toBe(before.pending);
  });

  it("appends deltas without re-copying earlier parts' text", () => {
    let state = fold(everyEventType.slice(0, 6));
    for (let i = 0; i < 20_000; i++) {
      state = reduceSession(state, {
        seq: 7 + i,
        sessionId: "s_1",
        at: "now",
        type: "text.delta",
        messageId: "m_1",
        delta: "w ",
      });
    }
    expect(state.messages[1]?.parts).toEqual([{ type: "text", text: "w ".repeat(20_000) }]);
  });
});
