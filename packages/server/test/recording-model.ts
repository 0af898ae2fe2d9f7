import type { LanguageModelV4, LanguageModelV4Message, LanguageModelV4ToolResultPart } from "@ai-sdk/provider";
import { type Script, type ScriptedModelOptions, scriptedModel } from "../src/index.js";

/** A scripted model that also records every prompt it was sent. */
export function recordingModel(script: Script, options?: ScriptedModelOptions) {
  const model = scriptedModel(script, options);
  const prompts: LanguageModelV4Message[][] = [];
  const recorded: LanguageModelV4 = {
    ...model,
    doStream(call) {
      prompts.push(structuredClone(call.prompt));
      return model.doStream(call);
    },
  };
  return { model: recorded, prompts };
}

/** The tool results of the newest tool message of a prompt. */
export function lastToolResults(prompt: LanguageModelV4Message[] | undefined): LanguageModelV4ToolResultPart[] {
  const message = [...(prompt ?? [])].reverse().find((candidate) => candidate.role === "tool");
  if (message?.role !== "tool") return [];
  return message.content.filter((part): part is LanguageModelV4ToolResultPart => part.type === "tool-result");
}
