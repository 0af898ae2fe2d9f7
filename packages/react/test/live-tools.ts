import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { z } from "zod";

/**
 * The tools the React tests park on (`pick_template`'s server schema refuses "retired"),
 * and `check_stock`, a server tool that runs at once (live-server-process.ts implements it).
 */
export const tools = {
  pickTemplate: defineClientTool({
    name: "pick_template",
    description: "Choose a template.",
    inputSchema: z.object({ templates: z.array(z.string()) }),
    answerSchema: z.object({ templateId: z.string() }).refine((answer) => answer.templateId !== "retired", {
      message: "That template is retired.",
      path: ["templateId"],
    }),
  }),
  pickSize: defineClientTool({
    name: "pick_size",
    description: "Choose a size.",
    inputSchema: z.object({}),
    answerSchema: z.object({ size: z.enum(["small", "large"]) }),
  }),
  checkStock: defineTool({
    name: "check_stock",
    description: "Count the posters in stock.",
    inputSchema: z.object({ sku: z.string() }),
  }),
};
