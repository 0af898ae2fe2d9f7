import { askQuestion, defineClientTool } from "@hitl-kit/protocol";
import { createWidgetRegistry } from "@hitl-kit/react";
import { describe, it } from "vitest";
import { z } from "zod";
import { AskQuestionWidget } from "../src/index.js";

const widened = [askQuestion({ inputSchema: z.object({ urgency: z.enum(["low", "high"]) }) })] as const;
const tools = [
  askQuestion(),
  defineClientTool({
    name: "pick_template",
    description: "d",
    inputSchema: z.object({ templates: z.array(z.string()) }),
    answerSchema: z.object({ templateId: z.string() }),
  }),
] as const;

describe("AskQuestionWidget", () => {
  it("registers for askQuestion, plain or widened, without a cast", () => {
    createWidgetRegistry<typeof tools>().add("ask_question", AskQuestionWidget);
    createWidgetRegistry<typeof widened>().add("ask_question", AskQuestionWidget);
  });

  it("refuses a tool whose answer is not { answer }", () => {
    // @ts-expect-error pick_template answers { templateId }
    createWidgetRegistry<typeof tools>().add("pick_template", AskQuestionWidget);
  });
});
