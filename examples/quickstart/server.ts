import { createAgentRuntime, createFetchHandler, implement, scriptedModel, serve } from "@hitl-kit/server";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { pickTemplate, refund } from "./tools.js";

// A scripted model plays one reply per model call, so this runs with no key. Any AI SDK
// model works instead: `anthropic("claude-sonnet-4-5")` from @ai-sdk/anthropic, say.
const model = scriptedModel([
  {
    text: "Let's make a poster. Which template?",
    toolCalls: [{ toolName: "pick_template", input: { templates: [{ id: "calm", title: "Calm" }] } }],
  },
  {
    text: "Nice. Refunding the old order needs your OK.",
    toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_42", amount: 1500 } }],
  },
  { text: "Done: the poster uses your template and the charge is refunded." },
]);

const runtime = createAgentRuntime({
  model,
  tools: [pickTemplate, implement(refund, async ({ chargeId, amount }) => ({ chargeId, refunded: amount }))],
  store: sqliteStore(".data/hitl.sqlite"),
});

const { url } = await serve(createFetchHandler(runtime), { port: Number(process.env.PORT ?? 3000) });
console.log(`hitl-kit listening on ${url}/api/agent`);
