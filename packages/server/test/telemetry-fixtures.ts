import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { memoryStore, type Script, type SessionStore, StoreUnavailable, scriptedModel } from "../src/index.js";

/**
 * A scripted model that reports what a provider does of each call: its response's id and
 * model (`response-metadata`), and token usage in its `finish` part (`inputTokens` input
 * tokens, 7 output tokens of which 2 reasoning, 3 input tokens read from the cache).
 */
export function reportingModel(script: Script, inputTokens = 11): LanguageModelV4 {
  const model = scriptedModel(script);
  let responses = 0;
  return {
    ...model,
    provider: "test.chat",
    modelId: "test-model",
    async doStream(call) {
      const { stream, ...rest } = await model.doStream(call);
      const id = `resp_${++responses}`;
      const reported = stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            if (part.type === "stream-start") {
              controller.enqueue(part);
              controller.enqueue({ type: "response-metadata", id, modelId: "test-model-2026" });
              return;
            }
            if (part.type !== "finish") return controller.enqueue(part);
            controller.enqueue({
              ...part,
              usage: {
                inputTokens: { total: inputTokens, noCache: inputTokens - 3, cacheRead: 3, cacheWrite: 0 },
                outputTokens: { total: 7, text: 5, reasoning: 2 },
              },
            });
          },
        }),
      );
      return { ...rest, stream: reported };
    },
  };
}

/** A memory store whose `getSession` fails as a store that cannot reach its database does, while `down`. */
export function flakyReads() {
  const memory = memoryStore();
  const state = { down: false };
  const store: SessionStore = {
    ...memory,
    getSession: (sessionId) =>
      state.down
        ? Promise.reject(new StoreUnavailable(new Error("connect ECONNREFUSED")))
        : memory.getSession(sessionId),
  };
  return { store, state };
}
