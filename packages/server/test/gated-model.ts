import type { LanguageModelV4, LanguageModelV4Message, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { scriptedModel } from "../src/index.js";

/** A session's events, and its transcript's assistant messages, as a turn that wrote the gated model's first reply once leaves them. */
export function writtenOnce(events: readonly ProtocolEvent[], transcript: readonly LanguageModelV4Message[]) {
  const assistant = new Set(
    events.flatMap((event) =>
      event.type === "message.started" && event.role === "assistant" ? [event.messageId] : [],
    ),
  );
  return {
    types: events.map((event) => event.type),
    text: events
      .flatMap((event) => (event.type === "text.delta" && assistant.has(event.messageId) ? [event.delta] : []))
      .join(""),
    replies: transcript.filter((message) => message.role === "assistant"),
  };
}

/** What {@link writtenOnce} answers for a turn that wrote "Hello world." once, in two deltas, after the person's "go". */
export const helloWorldOnce = {
  types: [
    "session.created",
    "turn.started",
    "message.started",
    "text.delta",
    "message.completed",
    "message.started",
    "text.delta",
    "text.delta",
    "message.completed",
    "turn.completed",
  ],
  text: "Hello world.",
  replies: [{ role: "assistant", content: [{ type: "text", text: "Hello world." }] }],
};

/**
 * A model whose first call streams `first`, then waits until `release()` before it streams
 * `rest`, then until `finish()` before it finishes; any later call answers "A second reply."
 * at once. `calls` counts the calls, so a test can tell whether the runtime asked the model again.
 */
export function gatedModel(first: string, rest: string) {
  let release!: () => void;
  let finish!: () => void;
  const gates = [
    new Promise<void>((resolve) => {
      release = resolve;
    }),
    new Promise<void>((resolve) => {
      finish = resolve;
    }),
  ];
  const again = scriptedModel(() => ({ text: "A second reply." }));
  const state = { calls: 0 };
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  const model: LanguageModelV4 = {
    ...again,
    async doStream(call) {
      state.calls += 1;
      if (state.calls > 1) return again.doStream(call);
      const parts: (LanguageModelV4StreamPart | "gate")[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: first },
        "gate",
        { type: "text-delta", id: "t", delta: rest },
        "gate",
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      let index = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            let part = parts[index++];
            if (part === "gate") {
              await gates.shift();
              part = parts[index++];
            }
            if (call.abortSignal?.aborted) return controller.error(call.abortSignal.reason);
            if (!part) return controller.close();
            controller.enqueue(part as LanguageModelV4StreamPart);
          },
        }),
      };
    },
  };
  return { model, release, finish, state };
}
