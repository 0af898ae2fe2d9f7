import { withElicitations } from "@hitl-kit/mcp";
import { implement, type RuntimeTool } from "@hitl-kit/server";
import { bookingsClient } from "../../../examples/mcp-booking/bookings-client.js";
import {
  bookTable,
  collectDetails,
  pickAspectRatio,
  pickMedia,
  pickTemplate,
  publishPoster,
  refundCharge,
} from "../src/shared/tools.js";
import { lookupMedia } from "./catalog.js";

const shortId = (prefix: string) => `${prefix}_${crypto.randomUUID().slice(0, 8)}`;

/**
 * The demo's tools as the runtime runs them: the shared definitions, with executors for
 * the server tools and a `resolve` that turns chosen media ids into media objects.
 */
export const demoTools: RuntimeTool[] = [
  pickTemplate,
  pickAspectRatio,
  implement(pickMedia, { resolve: ({ mediaIds }) => ({ media: lookupMedia(mediaIds) }) }),
  collectDetails,
  implement(publishPoster, (input, context) => {
    const posterId = shortId("poster");
    return {
      posterId,
      url: `/posters/${posterId}`,
      title: input.title,
      ...(context.approval?.reason ? { note: context.approval.reason } : {}),
    };
  }),
  implement(refundCharge, ({ chargeId, amount }) => ({
    refundId: shortId("re"),
    chargeId,
    amount,
    status: "refunded",
  })),
  // The bookings MCP server's elicitation becomes a request the person answers in the chat.
  implement(bookTable, async (input, ctx) => {
    const client = await bookingsClient();
    const result = await withElicitations(client, ctx, () =>
      client.callTool({ name: "book_table", arguments: input }, undefined, {
        signal: ctx.signal,
        timeout: 30 * 60_000,
      }),
    );
    // A failed MCP tool answers isError instead of throwing: the call's one result is then an error.
    if (result.isError) throw new Error(`The bookings server failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  }),
];
