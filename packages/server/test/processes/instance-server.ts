/**
 * One server instance for the multi-instance test: the Postgres store at HITL_DATABASE_URL
 * (schema HITL_SCHEMA, turn leases of HITL_LEASE_MS), anonymous identity cookies, and a
 * model that checks every prompt against both providers' pairing rules: it streams its
 * reply from the fake Anthropic server at HITL_ANTHROPIC_URL and sends the same prompt to
 * the fake OpenAI server at HITL_OPENAI_URL, failing the call if either rejects it. A
 * server tool takes HITL_TOOL_MS to run, so a SIGKILL can land mid-tool. Prints its URL.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { askQuestion, defineTool } from "@hitl-kit/protocol";
import { z } from "zod";
import { createAgentRuntime, createFetchHandler, implement, serve } from "../../src/index.js";
import { postgresStore } from "../../src/store/postgres-store.js";
import { pickTemplate } from "../tools.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`instance-server needs ${name}.`);
  return value;
};

const anthropic = createAnthropic({ baseURL: env("HITL_ANTHROPIC_URL"), apiKey: "test" })("claude-test");
const openai = createOpenAI({ baseURL: env("HITL_OPENAI_URL"), apiKey: "test" }).chat("gpt-test");
const model: LanguageModelV4 = {
  ...anthropic,
  async doStream(options) {
    // The OpenAI fake rejects (400) a prompt that breaks its pairing rules; that fails the call.
    const checked = await openai.doStream(options);
    for await (const _part of checked.stream);
    return anthropic.doStream(options);
  },
};

const publish = defineTool({
  name: "publish_poster",
  description: "Publish the poster.",
  inputSchema: z.object({ title: z.string() }),
  approval: () => true,
});
const toolMs = Number(process.env.HITL_TOOL_MS ?? "100");

const store = postgresStore(env("HITL_DATABASE_URL"), {
  schema: env("HITL_SCHEMA"),
  leaseMs: Number(process.env.HITL_LEASE_MS ?? "1000"),
  poolSize: 6,
});
const runtime = createAgentRuntime({
  model,
  tools: [
    pickTemplate,
    askQuestion(),
    implement(publish, async ({ title }, { signal }) => {
      await new Promise((resolve) => setTimeout(resolve, toolMs));
      signal.throwIfAborted();
      return { url: `https://posters.example/${title}` };
    }),
  ],
  store,
  logger: { warn: () => {}, error: (...args: unknown[]) => console.error(...args) },
});
await runtime.ready;
const { url } = await serve(createFetchHandler(runtime, { rateLimit: false, heartbeatMs: 1000 }), { port: 0 });
process.stdout.write(`${url}\n`);
