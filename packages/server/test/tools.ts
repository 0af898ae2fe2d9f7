import { always, askQuestion, defineClientTool, defineTool, once } from "@hitl-kit/protocol";
import { z } from "zod";
import { implement } from "../src/index.js";

/** Tools the server tests share: a client picker, approval-gated tools and a plain one. */
export const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.string()).min(1) }),
  answerSchema: z.object({ templateId: z.string().min(1) }),
  prompt: "Choose a template",
});

export const pickMedia = defineClientTool({
  name: "pick_media",
  description: "Ask the person to choose media.",
  inputSchema: z.object({ folder: z.string() }),
  answerSchema: z.object({ mediaIds: z.array(z.string()).min(1) }),
});

export const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: ({ input }) => input.amount > 1000,
});

export const publish = defineTool({
  name: "publish_poster",
  description: "Publish the poster.",
  inputSchema: z.object({ title: z.string() }),
  approval: always(),
});

export const sendEmail = defineTool({
  name: "send_email",
  description: "Send an email.",
  inputSchema: z.object({ to: z.string() }),
  approval: once(),
});

export const lookup = defineTool({
  name: "lookup_weather",
  description: "Look up the weather.",
  inputSchema: z.object({ city: z.string() }),
});

/** Every executed call, in order, so tests can count executions. */
export const executions: { tool: string; input: unknown; approval?: unknown }[] = [];

export const serverTools = [
  pickTemplate,
  implement(pickMedia, {
    resolve: async ({ mediaIds }) => ({ media: mediaIds.map((id) => ({ id, url: `/m/${id}.png` })) }),
  }),
  implement(refund, async (input, ctx) => {
    executions.push({ tool: "refund_charge", input, approval: ctx.approval });
    return { refunded: input.amount };
  }),
  implement(publish, async (input, ctx) => {
    executions.push({ tool: "publish_poster", input, approval: ctx.approval });
    return { url: `https://posters.example/${encodeURIComponent(input.title)}` };
  }),
  implement(sendEmail, async (input) => {
    executions.push({ tool: "send_email", input });
    return { sent: true };
  }),
  implement(lookup, async ({ city }) => {
    executions.push({ tool: "lookup_weather", input: { city } });
    if (city === "Atlantis") throw new Error("No such city");
    return { city, celsius: 21 };
  }),
  askQuestion(),
];
