import { defineTool, jsonSchema } from "@hitl-kit/protocol";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type AskResult, createAgentRuntime, implement, memoryStore, scriptedModel } from "../src/index.js";

const book = defineTool({
  name: "book_table",
  description: "Book a table.",
  inputSchema: z.object({ restaurant: z.string() }),
});

describe("ctx.ask", () => {
  it("types the answer from the question's schema, and only an accepted answer has a value", () => {
    implement(book, async (_input, ctx) => {
      const answer = await ctx.ask({ schema: z.object({ seats: z.number() }) });
      expectTypeOf(answer).toEqualTypeOf<AskResult<{ seats: number }>>();
      // @ts-expect-error a declined, cancelled or expired question has no value
      answer.value;
      if (answer.action === "accept") expectTypeOf(answer.value).toEqualTypeOf<{ seats: number }>();
      const typed = await ctx.ask({ schema: jsonSchema<{ time: string }>({ type: "object" }) });
      if (typed.action === "accept") expectTypeOf(typed.value.time).toBeString();
      return null;
    });
  });

  it("takes only a question whose answers are of the tool's declared asks", () => {
    const Seats = z.object({ seats: z.number() });
    const asking = defineTool({
      name: "book_table",
      description: "Book a table.",
      inputSchema: z.object({ restaurant: z.string() }),
      asks: Seats,
    });
    const tool = implement(asking, async (_input, ctx) => {
      const answer = await ctx.ask({ prompt: "How many seats?", schema: Seats });
      if (answer.action === "accept") expectTypeOf(answer.value.seats).toBeNumber();
      // @ts-expect-error the widget typed from `asks` would be handed { time }
      await ctx.ask({ prompt: "Which time?", schema: z.object({ time: z.string() }) });
      return null;
    });
    createAgentRuntime({ model: scriptedModel([]), tools: [tool], store: memoryStore() });
    const anyAnswer = defineTool({ name: "mcp", description: "d", inputSchema: z.object({}), asks: jsonSchema({}) });
    implement(anyAnswer, async (_input, ctx) => ctx.ask({ schema: z.object({ time: z.string() }) }));
  });
});
