import { join } from "node:path";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime, type SessionStore, scriptedModel } from "../src/index.js";
import { findTranscriptError } from "../src/runtime/transcript.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, tempDir } from "./harness.js";
import { serverTools } from "./tools.js";

/**
 * Random sequences of what people, networks, servers and models do — messages, answers good
 * and bad, duplicates, declines, cancels, expiries, restarts, and tool call ids the model
 * repeats — checking DESIGN.md's invariants 1 (one result per call) and 2 (nothing lost)
 * after every step.
 */
const calls = {
  pick: { toolName: "pick_template", input: { templates: ["a", "b"] } },
  publish: { toolName: "publish_poster", input: { title: "T" } },
  weather: { toolName: "lookup_weather", input: { city: "Oslo" } },
  refund: { toolName: "refund_charge", input: { chargeId: "c", amount: 5000 } },
  ask: { toolName: "ask_question", input: { question: "Why?" } },
};
type CallName = keyof typeof calls;

// A message "call:pick,weather" makes the model call those tools; after results it says "ok".
// "same-id:pick,weather" does too, but the model gives every call the same id, in every turn.
const model = scriptedModel((context) => {
  const last = context.prompt.at(-1);
  const [, mode, list] = /^(call|same-id):(.*)$/.exec(context.lastUserText) ?? [];
  if (last?.role === "user" && list !== undefined) {
    const names = list.split(",") as CallName[];
    const toolCallId = mode === "same-id" ? "call_same" : undefined;
    return { text: "Working on it.", toolCalls: names.map((name) => ({ ...calls[name], toolCallId })) };
  }
  return { text: "ok" };
});

const op = fc.oneof(
  fc.record({
    kind: fc.constant("send"),
    calls: fc.array(fc.constantFrom(...(Object.keys(calls) as CallName[])), { minLength: 0, maxLength: 3 }),
    sameId: fc.boolean(),
  }),
  fc.record({
    kind: fc.constantFrom("accept", "acceptInvalid", "decline", "cancelRequest", "duplicate", "expire"),
    pick: fc.nat(5),
  }),
  fc.record({ kind: fc.constantFrom("cancelTurn", "restart") }),
);

const answers: Record<string, unknown> = {
  pick_template: { templateId: "a" },
  ask_question: { answer: "because" },
  publish_poster: { reason: "fine" },
  refund_charge: {},
};

describe("invariants under random sequences", () => {
  it("keeps one result per call and loses no event, whatever happens", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const dir = tempDir();
        const path = join(dir.path, "hitl.sqlite");
        let store: SessionStore = sqliteStore(path);
        let runtime: AgentRuntime = createAgentRuntime({ model, tools: serverTools, store, logger: quiet });
        const { sessionId } = await runtime.createSession();
        let seen: ProtocolEvent[] = await runtime.readEvents(sessionId, 0);
        const answered: { requestId: string; action: "accept"; value: unknown }[] = [];
        try {
          for (const step of ops) {
            const open = (await runtime.getSnapshot(sessionId)).pending;
            const target = open.length > 0 && "pick" in step ? open[step.pick % open.length] : undefined;
            switch (step.kind) {
              case "send":
                await runtime
                  .sendMessage(
                    sessionId,
                    step.calls.length ? `${step.sameId ? "same-id" : "call"}:${step.calls.join(",")}` : "hello",
                  )
                  .catch(expectProtocolError);
                break;
              case "accept":
              case "duplicate": {
                if (!target) break;
                const response = {
                  requestId: target.requestId,
                  action: "accept" as const,
                  value: answers[target.toolName],
                };
                await runtime.respond(sessionId, [response]);
                answered.push(response);
                if (step.kind === "duplicate") await runtime.respond(sessionId, [response]);
                break;
              }
              case "acceptInvalid":
                if (target)
                  await runtime
                    .respond(sessionId, [{ requestId: target.requestId, action: "accept", value: { nope: 1 } }])
                    .catch(expectProtocolError);
                break;
              case "decline":
              case "cancelRequest":
                if (target)
                  await runtime.respond(sessionId, [
                    {
                      requestId: target.requestId,
                      action: step.kind === "decline" ? "decline" : "cancel",
                      reason: "r",
                    },
                  ]);
                break;
              case "expire": {
                const record = target && (await store.getRequest(sessionId, target.requestId));
                if (record) await store.write(sessionId, { requests: [{ ...record, expiresAt: Date.now() - 1 }] });
                break;
              }
              case "cancelTurn":
                await runtime.cancel(sessionId);
                break;
              case "restart":
                await runtime.close();
                await store.close();
                store = sqliteStore(path);
                runtime = createAgentRuntime({ model, tools: serverTools, store, logger: quiet });
                await runtime.ready;
                break;
            }
            await runtime.idle();
            const snapshot = await runtime.getSnapshot(sessionId);
            await runtime.idle();

            // Invariant 2: the log only grows, numbered 1..n, and keeps everything seen before.
            const events = await runtime.readEvents(sessionId, 0);
            expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
            expect(events.slice(0, seen.length)).toEqual(seen);
            seen = events;

            // Invariant 1: no call ever has two results, nor one before it was called; once the
            // session is idle, every call has exactly one. (While parked, a call may still wait.)
            const problems = checkOneResultPerCall(events);
            const pendingOnly = problems.every((problem) => problem.endsWith(" has 0 results"));
            expect(pendingOnly ? [] : problems).toEqual([]);
            if (snapshot.status === "idle") expect(problems).toEqual([]);
            const transcript = await store.readTranscript(sessionId);
            if (snapshot.status === "idle") expect(findTranscriptError(transcript)).toBeUndefined();
          }
          // An accepted answer is never lost: each one is recorded as its request's resolution.
          for (const { requestId } of answered) {
            expect(seen.some((event) => event.type === "input.resolved" && event.requestId === requestId)).toBe(true);
          }
        } finally {
          await runtime.close();
          await store.close();
          dir.cleanup();
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

function expectProtocolError(error: unknown) {
  expect(error).toMatchObject({ name: "ProtocolError" });
}
