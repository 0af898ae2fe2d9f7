import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";

/** What a runtime passes to every model call besides the prompt, the tools and the signal. */
export type ModelCallOptions = Omit<LanguageModelV4CallOptions, "prompt" | "tools" | "abortSignal">;

/**
 * The runtime's `callOptions` with what a durable session needs of a provider by default.
 * OpenAI's Responses API (`openai(modelId)`) stores each response for 30 days, and the AI SDK
 * then sends a stored transcript's reasoning, text and calls back as references to it: a
 * session picked up after that (a request answered weeks later, an old chat continued), or
 * with another project's key, fails with "Item with id … not found" on every call. The
 * runtime keeps the whole transcript itself, so it asks for `store: false`, which sends the
 * transcript inline and reasoning encrypted, unless `providerOptions.openai.store` is set.
 */
export function modelCallOptions(options: ModelCallOptions | undefined): ModelCallOptions {
  const openai = options?.providerOptions?.openai;
  if (openai && "store" in openai) return options;
  return { ...options, providerOptions: { ...options?.providerOptions, openai: { store: false, ...openai } } };
}
