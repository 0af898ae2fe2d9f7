import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { createAgentRuntime, createFetchHandler, implement, scriptedModel, serve, sqliteStore } from "@hitl-kit/server";
import { z } from "zod";

const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.string()) }),
  answerSchema: z.object({ templateId: z.string() }),
});
const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: ({ input }) => input.amount > 1000,
});

const runtime = createAgentRuntime({
  // Any AI SDK model works here, e.g. anthropic("claude-sonnet-4-5"); this one follows a script.
  model: scriptedModel([
    { text: "Which template?", toolCalls: [{ toolName: "pick_template", input: { templates: ["bold", "calm"] } }] },
    { text: "Refunding.", toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
    { text: "Done: template chosen and charge refunded." },
  ]),
  tools: [pickTemplate, implement(refund, async ({ amount }) => ({ refunded: amount }))],
  store: sqliteStore(".data/quickstart.sqlite"),
});
const { url } = await serve(createFetchHandler(runtime), { port: 3000 });
console.log(`hitl-kit listening on ${url}/api/agent`);
