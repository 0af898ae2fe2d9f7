// The model and tools of the README's src/server.ts, for the servers of docs/deploying.md
// (src/postgres-server.ts, src/postgres-express-server.ts), which import them from here.
import { implement, scriptedModel } from "@hitl-kit/server";
import { pickTemplate, refund } from "./tools.js";

export const model = scriptedModel([
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

export const tools = [
  pickTemplate,
  implement(refund, async ({ chargeId, amount }) => ({ chargeId, refunded: amount })),
];
