import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** What the bookings server asks the person for: a plain MCP `requestedSchema`. */
export const bookingQuestion = {
  type: "object" as const,
  properties: {
    seats: { type: "integer" as const, title: "Seats", description: "How many people", minimum: 1, maximum: 12 },
    date: { type: "string" as const, title: "Date", format: "date" as const },
  },
  required: ["seats", "date"],
};

/**
 * An MCP server with one tool, `book_table`, that asks the user for the seats and the date
 * with `elicitInput` — the MCP side of the demo, unaware of hitl-kit. Any MCP host that
 * answers elicitations can use it; in the demo, a person answers in the browser.
 */
export function createBookingsServer(): McpServer {
  const server = new McpServer({ name: "bookings", version: "1.0.0" });
  server.registerTool(
    "book_table",
    {
      description: "Book a table at a restaurant; asks the user for the seats and the date.",
      inputSchema: { restaurant: z.string() },
    },
    async ({ restaurant }) => {
      const answer = await server.server.elicitInput(
        { message: `How many seats at ${restaurant}, and on which day?`, requestedSchema: bookingQuestion },
        // A person answers: the SDK's default of 60 s is too short.
        { timeout: 30 * 60_000 },
      );
      const booking =
        answer.action === "accept"
          ? { status: "booked", restaurant, seats: answer.content?.seats, date: answer.content?.date }
          : { status: answer.action === "decline" ? "declined" : "cancelled", restaurant };
      return {
        content: [{ type: "text", text: JSON.stringify(booking) }],
        structuredContent: booking,
      };
    },
  );
  return server;
}
