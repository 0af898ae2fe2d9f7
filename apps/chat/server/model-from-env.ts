import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { type AgentRuntimeOptions, scriptedModel } from "@hitl-kit/server";
import { demoScript } from "./demo-script.js";

/** The model the demo runs, and how to name it in the startup line. */
export interface ModelChoice {
  model: AgentRuntimeOptions["model"];
  /** `scripted`, `anthropic:<id>` or `openai:<id>`. */
  label: string;
}

/** A configuration mistake; its message says what to set. `main.ts` prints it without a stack. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const providers = {
  anthropic: { key: "ANTHROPIC_API_KEY", base: "ANTHROPIC_BASE_URL", example: "anthropic:claude-sonnet-4-5" },
  openai: { key: "OPENAI_API_KEY", base: "OPENAI_BASE_URL", example: "openai:gpt-4.1-mini" },
} as const;

/**
 * Picks the model from `HITL_MODEL`: `scripted` (the default: the demo script, no key, no
 * network, a word every `HITL_SCRIPTED_DELAY_MS`, 20 by default), `anthropic:<id>` (needs `ANTHROPIC_API_KEY`; `ANTHROPIC_BASE_URL` for another
 * endpoint) or `openai:<id>` (Chat Completions; needs `OPENAI_API_KEY`, honours `OPENAI_BASE_URL`).
 * @throws {ConfigError} naming the variable to set
 * @example
 * const { model, label } = modelFromEnv(process.env);
 */
export function modelFromEnv(env: Record<string, string | undefined>): ModelChoice {
  const spec = env.HITL_MODEL?.trim() || "scripted";
  if (spec === "scripted") {
    const delay = env.HITL_SCRIPTED_DELAY_MS?.trim() || "20";
    if (!/^\d+$/.test(delay)) {
      throw new ConfigError(`HITL_SCRIPTED_DELAY_MS must be a whole number of milliseconds, not "${delay}".`);
    }
    return { model: scriptedModel(demoScript, { chunkDelayMs: Number(delay) }), label: spec };
  }
  const [provider = "", ...rest] = spec.split(":");
  const id = rest.join(":").trim();
  if (provider !== "anthropic" && provider !== "openai") {
    throw new ConfigError(
      `HITL_MODEL="${spec}" is not a model: use scripted, anthropic:<model id> or openai:<model id>.`,
    );
  }
  const names = providers[provider];
  if (!id) throw new ConfigError(`HITL_MODEL=${provider}: needs a model id, such as ${names.example}.`);
  const apiKey = env[names.key]?.trim();
  if (!apiKey) {
    throw new ConfigError(
      `HITL_MODEL=${spec} needs ${names.key}: set it (and ${names.base} for another endpoint), or unset HITL_MODEL to run the scripted model.`,
    );
  }
  const baseURL = env[names.base]?.trim() || undefined;
  const settings = { apiKey, ...(baseURL ? { baseURL } : {}) };
  const model = provider === "anthropic" ? createAnthropic(settings)(id) : createOpenAI(settings).chat(id);
  return { model, label: spec };
}
