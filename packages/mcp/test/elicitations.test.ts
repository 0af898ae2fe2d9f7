import { defineTool } from "@hitl-kit/protocol";
import { implement } from "@hitl-kit/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { checkOneResultPerCall, readSse, startServer } from "../../server/test/harness.js";
import { recordingModel } from "../../server/test/recording-model.js";
import { elicitationCapabilities, urlElicitationKeyword, withElicitations } from "../src/index.js";

const requestedSchema = {
  type: "object",
  properties: {
    seats: { type: "integer", title: "Seats", minimum: 1, maximum: 12 },
    date: { type: "string", title: "Date", format: "date" },
  },
  required: ["seats", "date"],
} satisfies Extract<ElicitRequest["params"], { requestedSchema: unknown }>["requestedSchema"];

/** What the MCP server's tool heard back from each elicitation. */
let heard: ElicitResult[] = [];
/** The errors its elicitations failed with. */
let failed: string[] = [];
let completeLink: (() => Promise<void>) | undefined;

/** An MCP server whose `book_table` tool elicits the seats and date (or sends the person to a link). */
function bookingServer() {
  const mcp = new McpServer({ name: "bookings", version: "1.0.0" });
  mcp.registerTool(
    "book_table",
    { description: "Book a table.", inputSchema: { restaurant: z.string(), viaLink: z.boolean().optional() } },
    async ({ restaurant, viaLink }) => {
      const elicitationId = `pay-${restaurant}`;
      if (viaLink) completeLink = mcp.server.createElicitationCompletionNotifier(elicitationId);
      const result = await mcp.server
        .elicitInput(
          viaLink
            ? { mode: "url", message: "Pay the deposit.", url: `https://pay.example/${restaurant}`, elicitationId }
            : { message: `How many seats at ${restaurant}, and when?`, requestedSchema },
          { timeout: 10 * 60_000 },
        )
        .catch((error: Error) => {
          failed.push(error.message);
          throw error;
        });
      heard.push(result);
      return { content: [{ type: "text", text: JSON.stringify({ restaurant, ...result }) }] };
    },
  );
  return mcp;
}

const book = defineTool({
  name: "book_table",
  description: "Book a table through the bookings MCP server.",
  inputSchema: z.object({ restaurant: z.string(), viaLink: z.boolean().optional() }),
});

let server: ReturnType<typeof startServer> | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
  heard = [];
  failed = [];
  completeLink = undefined;
});

/** A hitl-kit server whose `book_table` tool calls the MCP server's, with elicitations forwarded to the person. */
async function host(options: { expireAfter?: number; sessions?: number; viaLink?: boolean } = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await bookingServer().connect(serverSide);
  const mcpClient = new Client({ name: "hitl-host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
  await mcpClient.connect(clientSide);
  client = mcpClient;
  const tool = implement(book, (input, ctx) =>
    withElicitations(mcpClient, ctx, async () => {
      const result = await mcpClient.callTool({ name: "book_table", arguments: input }, undefined, {
        signal: ctx.signal,
        timeout: 10 * 60_000,
      });
      const [first] = result.content as { type: string; text: string }[];
      return JSON.parse(first!.text) as unknown;
    }),
  );
  const script = [
    { toolCalls: [{ toolName: "book_table", input: { restaurant: "Nora", viaLink: options.viaLink ?? false } }] },
    { text: "Done." },
  ];
  server = startServer(recordingModel(script).model, {
    tools: [tool],
    ...(options.expireAfter === undefined ? {} : { expireAfter: options.expireAfter }),
  });
  const ids: string[] = [];
  for (let index = 0; index < (options.sessions ?? 1); index++) {
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    ids.push(id);
  }
  return ids;
}

async function openRequest(id: string) {
  let pending: Awaited<ReturnType<NonNullable<typeof server>["snapshot"]>>["pending"] = [];
  await vi.waitFor(async () => {
    pending = (await server!.snapshot(id)).pending;
    expect(pending).toHaveLength(1);
  });
  return pending[0]!;
}

function answer(id: string, response: { requestId: string; action: string; value?: unknown; reason?: string }) {
  return server!.call("POST", `/sessions/${id}/responses`, { responses: [response] });
}

async function finished(id: string) {
  await server!.runtime.idle();
  const events = await server!.events(id);
  expect(checkOneResultPerCall(events)).toEqual([]);
  return events;
}

describe("MCP elicitations forwarded to the person", () => {
  it("parks a form elicitation as an input request and sends the accepted answer back as its content", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    expect(request).toMatchObject({
      kind: "input",
      toolName: "book_table",
      prompt: "How many seats at Nora, and when?",
    });
    expect(request.answerSchema).toEqual({ ...requestedSchema, additionalProperties: false });

    const accepted = await answer(id!, {
      requestId: request.requestId,
      action: "accept",
      value: { seats: 4, date: "2026-12-24" },
    });
    expect(accepted.status).toBe(202);
    const events = await finished(id!);
    expect(heard).toEqual([{ action: "accept", content: { seats: 4, date: "2026-12-24" } }]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { restaurant: "Nora", action: "accept", content: { seats: 4, date: "2026-12-24" } } },
    ]);
  });

  it("sends a decline and a cancel back as such, with no content", async () => {
    for (const action of ["decline", "cancel"] as const) {
      const [id] = await host();
      const request = await openRequest(id!);
      expect((await answer(id!, { requestId: request.requestId, action, reason: "not tonight" })).status).toBe(202);
      const events = await finished(id!);
      expect(heard).toEqual([{ action }]);
      expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
        { outcome: "ok", output: { action } },
      ]);
      await client!.close();
      await server!.close();
      server = undefined;
      heard = [];
    }
  });

  it("sends an expired request back as a cancel", async () => {
    const [id] = await host({ expireAfter: 50 });
    await vi.waitFor(() => expect(heard).toEqual([{ action: "cancel" }]));
    const events = await finished(id!);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([{ action: "expire" }]);
  });

  it("refuses an answer that fails the requested schema with 422, before it reaches the MCP server", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    for (const value of [{ seats: 40, date: "2026-12-24" }, { seats: 2 }, { seats: 2, date: "next friday" }]) {
      const refused = await answer(id!, { requestId: request.requestId, action: "accept", value });
      expect(refused.status).toBe(422);
    }
    expect(heard).toEqual([]);
    expect((await server!.snapshot(id!)).pending.map((open) => open.requestId)).toEqual([request.requestId]);
    await answer(id!, { requestId: request.requestId, action: "accept", value: { seats: 2, date: "2026-12-31" } });
    await finished(id!);
    expect(heard).toEqual([{ action: "accept", content: { seats: 2, date: "2026-12-31" } }]);
  });

  it("refuses an answer with a field the elicitation did not ask for, which the MCP server would refuse", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    for (const extra of [{ notes: null }, { notes: "window seat" }]) {
      const value = { seats: 2, date: "2026-12-24", ...extra };
      expect((await answer(id!, { requestId: request.requestId, action: "accept", value })).status).toBe(422);
    }
    expect(heard).toEqual([]);
  });

  it("tells the MCP server the person cancelled when they stop the turn; the call's result says why, not the SDK's wrapper", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    expect((await server!.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    const events = await finished(id!);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: request.requestId, action: "cancel" },
    ]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "error", output: { message: "The person stopped the turn." } },
    ]);
    await vi.waitFor(() => expect(heard).toEqual([{ action: "cancel" }]));
  });

  it("leaves the question open for the next start when the host closes, and tells the MCP server only that it stopped", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    await server!.runtime.close({ timeoutMs: 100 });
    await vi.waitFor(() =>
      expect(failed).toEqual([expect.stringContaining("The host stopped before the person answered")]),
    );
    expect(failed[0]).not.toContain(id);
    // Nothing written as the call's result: the turn's next driver settles it, as after a crash.
    const events = await server!.store.readEvents(id!, 0);
    expect(events.filter((event) => event.type === "tool.result")).toEqual([]);
    expect((await server!.store.getRequest(id!, request.requestId))?.state).toBe("open");
  });

  it("cancels the request when the MCP connection closes, and the call gets one error result", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    await client!.close();
    const events = await finished(id!);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: request.requestId, action: "cancel" },
    ]);
    const results = events.filter((event) => event.type === "tool.result");
    expect(results).toMatchObject([{ outcome: "error", output: { message: expect.stringMatching(/closed/i) } }]);
    expect((await server!.snapshot(id!)).pending).toEqual([]);
    expect((await answer(id!, { requestId: request.requestId, action: "cancel" })).status).toBe(409);
    expect(heard).toEqual([]);
  });

  it("shows the open elicitation after a reload, and an answer from the reloaded page completes the MCP tool", async () => {
    const [id] = await host();
    const first = await openRequest(id!);
    // The page reloads: it reads the snapshot and the event log afresh.
    const snapshot = await server!.snapshot(id!);
    expect(snapshot.pending).toEqual([first]);
    const stream = await server!.send(`/sessions/${id}/events?after=0`);
    const replayed = await readSse(stream, id!, (events) => events.some((event) => event.type === "input.requested"));
    expect(replayed.find((event) => event.type === "input.requested")).toMatchObject({ requests: [first] });
    await answer(id!, {
      requestId: snapshot.pending[0]!.requestId,
      action: "accept",
      value: { seats: 6, date: "2027-01-02" },
    });
    await finished(id!);
    expect(heard).toEqual([{ action: "accept", content: { seats: 6, date: "2027-01-02" } }]);
  });

  it("routes the elicitations of concurrent calls on one client to their own sessions", async () => {
    const ids = await host({ sessions: 2 });
    const requests = await Promise.all(ids.map((id) => openRequest(id)));
    await answer(ids[1]!, {
      requestId: requests[1]!.requestId,
      action: "accept",
      value: { seats: 1, date: "2026-12-01" },
    });
    await answer(ids[0]!, { requestId: requests[0]!.requestId, action: "decline" });
    await server!.runtime.idle();
    const outputs = await Promise.all(
      ids.map(async (id) => (await finished(id)).find((event) => event.type === "tool.result")),
    );
    expect(outputs).toMatchObject([
      { output: { action: "decline" } },
      { output: { action: "accept", content: { seats: 1 } } },
    ]);
  });

  it("parks a URL elicitation as a link request: the person's accept goes back as accept", async () => {
    const [id] = await host({ viaLink: true });
    const request = await openRequest(id!);
    expect(request.prompt).toBe("Pay the deposit.\nhttps://pay.example/Nora");
    expect(request.answerSchema[urlElicitationKeyword]).toEqual({
      mode: "url",
      url: "https://pay.example/Nora",
      elicitationId: "pay-Nora",
    });
    await answer(id!, { requestId: request.requestId, action: "accept", value: {} });
    await finished(id!);
    expect(heard).toEqual([{ action: "accept" }]);
  });

  it("completes a URL elicitation when the MCP server says it is complete before the person answers", async () => {
    const [id] = await host({ viaLink: true });
    const request = await openRequest(id!);
    await completeLink!();
    const events = await finished(id!);
    expect(heard).toEqual([{ action: "accept" }]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      {
        requestId: request.requestId,
        action: "accept",
        value: {},
        reason: "The MCP server reported this elicitation complete.",
      },
    ]);
  });

  it("keeps URL elicitations that share an id apart: one answered leaves the other to complete", async () => {
    const ids = await host({ sessions: 2, viaLink: true });
    const requests = await Promise.all(ids.map((id) => openRequest(id)));
    await answer(ids[0]!, { requestId: requests[0]!.requestId, action: "decline" });
    await vi.waitFor(() => expect(heard).toEqual([{ action: "decline" }]));
    await completeLink!();
    const events = await finished(ids[1]!);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      {
        requestId: requests[1]!.requestId,
        action: "accept",
        reason: "The MCP server reported this elicitation complete.",
      },
    ]);
  });

  it("refuses an elicitation that arrives while no tool call runs inside withElicitations, saying why", async () => {
    const [id] = await host();
    const request = await openRequest(id!);
    await answer(id!, { requestId: request.requestId, action: "decline" });
    await finished(id!);
    // The bridge is installed on the client now; a call outside withElicitations has no person to ask.
    const outside = await client!.callTool({ name: "book_table", arguments: { restaurant: "Ora" } });
    expect(outside.isError).toBe(true);
    expect(JSON.stringify(outside.content)).toMatch(/No person can answer this elicitation/);
    expect(heard).toEqual([{ action: "decline" }]);
  });

  it("names the fix when the client does not declare the elicitation capability", async () => {
    const bare = new Client({ name: "bare", version: "1.0.0" });
    const ctx = { ask: () => Promise.reject(new Error("not asked")) } as unknown as Parameters<
      typeof withElicitations
    >[1];
    await expect(withElicitations(bare, ctx, async () => 1)).rejects.toThrow(/capabilities: elicitationCapabilities/);
  });
});
