import { defineClientTool } from "@hitl-kit/protocol";
import { createWidgetRegistry } from "@hitl-kit/react";
import { describe, it } from "vitest";
import { z } from "zod";
import { ApprovalCard, FormWidget, FreeformAnswer } from "../src/index.js";

const tool = <const Name extends string, A extends z.ZodType>(name: Name, answerSchema: A) =>
  defineClientTool({ name, description: "d", inputSchema: z.object({}), answerSchema });

const tools = [
  tool("ask_note", z.object({ answer: z.string() })),
  tool("ask_reason", z.object({ reason: z.string(), urgent: z.boolean().optional() })),
  tool("ask_text", z.string()),
  tool("pick_seat", z.object({ seat: z.string(), cabin: z.enum(["economy", "business"]) })),
  tool("pick_cabin", z.object({ cabin: z.enum(["economy", "business"]) })),
  tool("count", z.object({ count: z.number() })),
] as const;

describe("FreeformAnswer in a typed registry", () => {
  it("registers for an answer it can give: a string, or one required string property", () => {
    createWidgetRegistry<typeof tools>()
      .add("ask_note", FreeformAnswer)
      .add("ask_reason", FreeformAnswer)
      .add("ask_text", FreeformAnswer);
    createWidgetRegistry().add("anything", FreeformAnswer);
  });

  it("refuses an answer it could never give", () => {
    // @ts-expect-error two required properties: the text fills one
    createWidgetRegistry<typeof tools>().add("pick_seat", FreeformAnswer);
    // @ts-expect-error a choice of two words, not any text
    createWidgetRegistry<typeof tools>().add("pick_cabin", FreeformAnswer);
    // @ts-expect-error a number
    createWidgetRegistry<typeof tools>().add("count", FreeformAnswer);
  });

  it("takes any answer with toAnswer", () => {
    createWidgetRegistry<typeof tools>().add("pick_seat", (props) => (
      <FreeformAnswer {...props} toAnswer={(seat) => ({ seat, cabin: "economy" })} />
    ));
  });
});

describe("an untyped registry", () => {
  it("takes every default widget, as its tools' answers are not known", () => {
    createWidgetRegistry().add("approve", ApprovalCard).add("form", FormWidget).add("note", FreeformAnswer);
  });
});
