import { defineTool, jsonSchema } from "@hitl-kit/protocol";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type AskResult, implement } from "../src/index.js";

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
});
