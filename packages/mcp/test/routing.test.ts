import { AsyncResource } from "node:async_hooks";
import { defineTool } from "@hitl-kit/protocol";
import { implement, scriptedModel } from "@hitl-kit/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { checkOneResultPerCall, startServer } from "../../server/test/harness.js";
import { type ClientPerSession, clientPerSession, elicitationCapabilities, withElicitations } from "../src/index.js";

/**
 * Runs a function outside any tool call's async context, as a message that arrives over
 * stdio or HTTP runs: bound here, at load time, before any call.
 */
const outsideAnyCall = AsyncResource.bind(<T>(run: () => T): T => run());

const confirm = { type: "object" as const, properties: { ok: { type: "boolean" as const } }, required: ["ok"] };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What an MCP server's tools heard back, or the error their elicitation failed with. */
type Heard = { who: string; result?: ElicitResult; error?: string }[];
/** This test's (a server of an earlier test may still be asking, and failing, after its test). */
let heard: Heard = [];

/**
 * An MCP server whose `charge` tool asks to confirm a charge, and asks again (up to three
 * times) when the question fails or is cancelled, ignoring the host's cancellation, as many
 * tools do; `late` returns at once and asks 300 ms after; `hold` asks nothing and returns 2 s
 * later. With `stdio`, its questions arrive
 * outside the asking call's async context.
 */
function chargeServer(stdio: boolean, heard: Heard) {
  const mcp = new McpServer({ name: "payments", version: "1.0.0" });
  const ask = async (who: string, message: string) => {
    const elicit = () => mcp.server.elicitInput({ message, requestedSchema: confirm }, { timeout: 60_000 });
    try {
      const result = await (stdio ? outsideAnyCall(elicit) : elicit());
      heard.push({ who, result });
      return result;
    } catch (error) {
      heard.push({ who, error: (error as Error).message });
      return undefined;
    }
  };
  mcp.registerTool("charge", { inputSchema: { who: z.string() } }, async ({ who }) => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const result = await ask(who, `Charge ${who}'s card? (attempt ${attempt})`);
      if (result?.action === "accept" || result?.action === "decline") break;
      await wait(20);
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  mcp.registerTool("hold", { inputSchema: { who: z.string() } }, async () => {
    await wait(2_000);
    return { content: [{ type: "text", text: "held" }] };
  });
  mcp.registerTool("late", { inputSchema: { who: z.string() } }, async ({ who }) => {
    setTimeout(() => void ask(who, `A late question for ${who}`), 300);
    return { content: [{ type: "text", text: "returned" }] };
  });
  return mcp;
}

const charge = defineTool({
  name: "charge",
  description: "Charge a card through the payments MCP server.",
  inputSchema: z.object({ mcpTool: z.string(), who: z.string() }),
});

let server: ReturnType<typeof startServer> | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

/**
 * A hitl-kit server whose sessions share one MCP client; the message `<mcpTool> <who>`
 * makes the model call that MCP tool for that person.
 */
async function host(stdio: boolean) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  heard = [];
  await chargeServer(stdio, heard).connect(serverSide);
  const shared = new Client({ name: "host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
  await shared.connect(clientSide);
  client = shared;
  const tool = implement(charge, (input, ctx) =>
    withElicitations(shared, ctx, () =>
      shared.callTool({ name: input.mcpTool, arguments: { who: input.who } }, undefined, { signal: ctx.signal }),
    ),
  );
  const model = scriptedModel(({ prompt, lastUserText }) => {
    const [mcpTool, who] = lastUserText.split(" ");
    const asked = prompt.at(-1)?.role === "user";
    return asked ? { toolCalls: [{ toolName: "charge", input: { mcpTool, who } }] } : { text: "Done." };
  });
  server = startServer(model, { tools: [tool] });
}

async function session(text: string) {
  const id = await server!.session();
  await server!.call("POST", `/sessions/${id}/messages`, { text });
  return id;
}

const prompts = async (id: string) => (await server!.snapshot(id)).pending.map((request) => request.prompt);

describe("a question whose tool call is over", () => {
  it.each([
    ["in process", false],
    ["over a transport without the call's context", true],
  ])("%s: a stopped call's MCP tool asks again: refused, not shown to another session's call", async (_, stdio) => {
    await host(stdio);
    const alice = await session("charge Alice");
    await vi.waitFor(async () => expect(await prompts(alice)).toEqual(["Charge Alice's card? (attempt 1)"]));
    const bob = await session("hold Bob"); // a call on the same client that asks nothing yet
    await vi.waitFor(async () =>
      expect((await server!.events(bob)).map((event) => event.type)).toContain("tool.called"),
    );

    expect((await server!.call("POST", `/sessions/${alice}/cancel`, {})).status).toBe(202);
    // Alice's MCP tool hears that the person cancelled, ignores the host's cancellation and asks twice more.
    await vi.waitFor(() => expect(heard.filter((entry) => entry.who === "Alice")).toHaveLength(3));
    const [first, ...again] = heard.filter((entry) => entry.who === "Alice");
    expect(first).toEqual({ who: "Alice", result: { action: "cancel" } });
    for (const refused of again) {
      expect(refused.error).toMatch(
        /^MCP error -32600: No person can answer this elicitation: it may come from a tool call of another session/,
      );
    }
    expect(await prompts(bob)).toEqual([]);
    expect(checkOneResultPerCall(await server!.events(alice))).toEqual([]);
  });

  it("in process: a question sent after its call returned is refused, not shown to the call running", async () => {
    await host(false);
    const alice = await session("late Alice");
    await vi.waitFor(async () => expect((await server!.snapshot(alice)).status).toBe("idle"));
    const bob = await session("charge Bob");
    await vi.waitFor(async () => expect(await prompts(bob)).toEqual(["Charge Bob's card? (attempt 1)"]));
    await vi.waitFor(() => expect(heard.some((entry) => entry.who === "Alice")).toBe(true));
    expect(heard.find((entry) => entry.who === "Alice")?.error).toMatch(
      /No person can answer this elicitation: it may come from a tool call of another session/,
    );
    expect(await prompts(bob)).toEqual(["Charge Bob's card? (attempt 1)"]);
  });

  it("without the context: the one call running gets the question when no other session's call was cut off", async () => {
    await host(true);
    const alice = await session("charge Alice");
    await vi.waitFor(async () => expect(await prompts(alice)).toEqual(["Charge Alice's card? (attempt 1)"]));
    const [request] = (await server!.snapshot(alice)).pending;
    await server!.call("POST", `/sessions/${alice}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { ok: true } }],
    });
    await server!.runtime.idle();
    // Alice's call ended with its answer: Bob's question is his, on the same client.
    const bob = await session("charge Bob");
    await vi.waitFor(async () => expect(await prompts(bob)).toEqual(["Charge Bob's card? (attempt 1)"]));
    expect(heard).toEqual([{ who: "Alice", result: { action: "accept", content: { ok: true } } }]);
  });

  it("without the context: a session whose own call was cut off still gets its next call's question", async () => {
    await host(true);
    const alice = await session("charge Alice");
    await vi.waitFor(async () => expect(await prompts(alice)).toEqual(["Charge Alice's card? (attempt 1)"]));
    await server!.call("POST", `/sessions/${alice}/cancel`, {});
    await vi.waitFor(() => expect(heard).toHaveLength(3));
    await server!.call("POST", `/sessions/${alice}/messages`, { text: "charge Alice" });
    await vi.waitFor(async () => expect(await prompts(alice)).toEqual(["Charge Alice's card? (attempt 1)"]));
  });
});

describe("a client per session", () => {
  let clients: ClientPerSession | undefined;
  afterEach(async () => {
    await clients?.close();
    clients = undefined;
  });

  /** A hitl-kit server whose sessions each get their own client, of their own MCP server (as a stdio process per session is). */
  async function perSession(options: { idleMs?: number } = {}) {
    heard = [];
    const connected: { sessionId: string; client: Client; close: () => Promise<void> }[] = [];
    clients = clientPerSession(async (sessionId) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await chargeServer(true, heard).connect(serverSide);
      const client = new Client({ name: "host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
      await client.connect(clientSide);
      connected.push({ sessionId, client, close: () => serverSide.close() });
      return client;
    }, options);
    const own = clients;
    const tool = implement(charge, (input, ctx) =>
      own.call(ctx, (client) =>
        client.callTool({ name: input.mcpTool, arguments: { who: input.who } }, undefined, { signal: ctx.signal }),
      ),
    );
    const model = scriptedModel(({ prompt, lastUserText }) => {
      const [mcpTool, who] = lastUserText.split(" ");
      return prompt.at(-1)?.role === "user"
        ? { toolCalls: [{ toolName: "charge", input: { mcpTool, who } }] }
        : { text: "Done." };
    });
    server = startServer(model, { tools: [tool] });
    return connected;
  }

  it("shows a session its own question after another session's call was stopped while its MCP tool asked on", async () => {
    await perSession();
    const alice = await session("charge Alice");
    await vi.waitFor(async () => expect(await prompts(alice)).toEqual(["Charge Alice's card? (attempt 1)"]));
    expect((await server!.call("POST", `/sessions/${alice}/cancel`, {})).status).toBe(202);
    await vi.waitFor(() => expect(heard.filter((entry) => entry.who === "Alice")).toHaveLength(3));

    // On a shared client, Bob's question would be refused now (the test above): on his own, he gets it.
    const bob = await session("charge Bob");
    await vi.waitFor(async () => expect(await prompts(bob)).toEqual(["Charge Bob's card? (attempt 1)"]));
    const [request] = (await server!.snapshot(bob)).pending;
    await server!.call("POST", `/sessions/${bob}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { ok: true } }],
    });
    await vi.waitFor(async () => expect((await server!.snapshot(bob)).status).toBe("idle"));
    expect(heard.filter((entry) => entry.who === "Bob")).toEqual([
      { who: "Bob", result: { action: "accept", content: { ok: true } } },
    ]);
    expect(checkOneResultPerCall(await server!.events(bob))).toEqual([]);
  });

  it("connects a session's client again after it closed, and closes one left idle", async () => {
    const connected = await perSession({ idleMs: 100 });
    const alice = await session("hold Alice");
    await vi.waitFor(async () => expect((await server!.snapshot(alice)).status).toBe("idle"), { timeout: 5_000 });
    expect(connected.map((entry) => entry.sessionId)).toEqual([alice]);

    // The MCP server went away: the next call of the session connects a new client.
    await connected[0]!.close();
    await server!.call("POST", `/sessions/${alice}/messages`, { text: "hold Alice" });
    await vi.waitFor(async () => expect((await server!.snapshot(alice)).status).toBe("idle"), { timeout: 5_000 });
    expect(connected.map((entry) => entry.sessionId)).toEqual([alice, alice]);

    // Idle longer than idleMs: closed, and connected again when the session calls.
    const closed = vi.fn();
    connected[1]!.client.onclose = closed;
    await vi.waitFor(() => expect(closed).toHaveBeenCalled());
    await server!.call("POST", `/sessions/${alice}/messages`, { text: "hold Alice" });
    await vi.waitFor(async () => expect((await server!.snapshot(alice)).status).toBe("idle"), { timeout: 5_000 });
    expect(connected).toHaveLength(3);
    expect(checkOneResultPerCall(await server!.events(alice))).toEqual([]);
  });
});
