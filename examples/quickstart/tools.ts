import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { z } from "zod";

/** The person picks a template: the answer is typed `{ templateId: string }` from here to the widget. */
export const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.object({ id: z.string(), title: z.string() })) }),
  answerSchema: z.object({ templateId: z.string() }),
  prompt: "Choose a template for your poster",
});

/** A server tool that waits for the person's approval when the amount is over 1000. */
export const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: ({ input }) => input.amount > 1000,
  prompt: (input) => `Refund ${input.amount} on ${input.chargeId}?`,
});

export const tools = { pickTemplate, refund };
