import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4FunctionTool,
  type LanguageModelV4Message,
  type LanguageModelV4StreamPart,
} from "@ai-sdk/provider";

/** What the fake providers' own tests call a provider package with. */
export const weather: LanguageModelV4FunctionTool = {
  type: "function",
  name: "weather",
  description: "Current weather in a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** A person's message. */
export const say = (text: string): LanguageModelV4Message => ({ role: "user", content: [{ type: "text", text }] });

/** Runs doStream (with the weather tool) and reads every part. */
export async function stream(
  model: LanguageModelV4,
  prompt: LanguageModelV4Message[],
  options: Partial<LanguageModelV4CallOptions> = {},
): Promise<LanguageModelV4StreamPart[]> {
  const reader = (await model.doStream({ prompt, tools: [weather], ...options })).stream.getReader();
  const parts: LanguageModelV4StreamPart[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return parts;
}

/** The APICallError a doStream call fails with. */
export async function failure(promise: Promise<unknown>): Promise<APICallError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}
