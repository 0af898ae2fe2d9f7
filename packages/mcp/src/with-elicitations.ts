import { AsyncLocalStorage } from "node:async_hooks";
import type { ToolContext } from "@hitl-kit/server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";
import { elicitationQuestion, elicitResult } from "./elicitation-question.js";

/**
 * The client capabilities the bridge answers for: form and URL elicitations. Pass them when
 * you create the `Client` (capabilities are fixed once it connects).
 * @example
 * const client = new Client({ name: "my-host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
 */
export const elicitationCapabilities = { elicitation: { form: {}, url: {} } } as const;

/** One tool call that runs MCP requests on a client: see {@link withElicitations}. */
interface Caller {
  ctx: ToolContext;
}

/** A client's routing: which tool calls use it, and the URL elicitations still open. */
interface Bridge {
  readonly current: AsyncLocalStorage<Caller>;
  readonly callers: Set<Caller>;
  /**
   * Sessions with a call on this client that ended without its MCP answer (stopped, timed
   * out, failed): the MCP server may still be working for them, and ask. At most
   * {@link MAX_CUT_OFF}; past it `cutOffMore`, and no question is routed without its context.
   */
  readonly cutOff: Set<string>;
  cutOffMore: boolean;
  /** Open URL elicitations by id: each settles its person's request when the MCP server says it is complete. */
  readonly links: Map<string, Set<() => void>>;
}

const bridges = new WeakMap<Client, Bridge>();

/** How many cut-off sessions a client remembers one by one (see `Bridge.cutOff`), so a long-lived client stays small. */
const MAX_CUT_OFF = 1_000;

/** Reason given when the MCP server reports a URL elicitation complete before the person answered. */
const completedAtLink = "The MCP server reported this elicitation complete.";
/** What the MCP server hears when the host stops (or hands the call on) while the person has not answered. */
const hostLeft = "The host stopped before the person answered this elicitation.";

/**
 * Runs MCP requests of a hitl-kit server tool so that the MCP server's elicitations reach
 * the person: each `elicitation/create` the server sends while `run` is running parks a
 * request through `ctx.ask` — form mode with the elicitation's `requestedSchema` as the
 * answer schema, URL mode as a link — and the person's accept, decline or cancel (an
 * expired request cancels) goes back as the `ElicitResult`. The answer is checked against
 * the schema before it leaves (a bad one is refused with 422 and the request stays open).
 * If the MCP server withdraws the elicitation (its request is cancelled, or the connection
 * closes), the request settles as cancelled.
 *
 * The first call installs the client's `elicitation/create` handler (replacing any other).
 * The client must have been created with {@link elicitationCapabilities}. Several tool
 * calls may share a client while their elicitations can be told apart: in process (the
 * in-memory transport) they follow the call's async context; over stdio or HTTP, one call
 * at a time — give each session its own client when calls overlap.
 *
 * Set the request's timeouts: the SDK's default of 60 s counts the time the person takes
 * (see docs/mcp.md).
 * @example
 * implement(bookTable, async (input, ctx) => {
 *   const result = await withElicitations(client, ctx, () =>
 *     client.callTool({ name: "book_table", arguments: input }, undefined, { signal: ctx.signal, timeout: 15 * 60_000 }),
 *   );
 *   if (result.isError) throw new Error(JSON.stringify(result.content)); // else the call's one result is `ok`
 *   return result.structuredContent ?? result.content;
 * });
 */
export async function withElicitations<T>(client: Client, ctx: ToolContext, run: () => Promise<T>): Promise<T> {
  const bridge = bridgeFor(client);
  const caller: Caller = { ctx };
  bridge.callers.add(caller);
  try {
    return await bridge.current.run(caller, run);
  } catch (error) {
    if (bridge.cutOff.size < MAX_CUT_OFF) bridge.cutOff.add(ctx.sessionId);
    else if (!bridge.cutOff.has(ctx.sessionId)) bridge.cutOffMore = true;
    // The SDK wraps the call's abort reason in its own error ("MCP error -32001: …"): the
    // reason itself says why (the person stopped the turn), and a server leaving the turn
    // must see its own reason to leave the call to the next one.
    throw ctx.signal.aborted ? ctx.signal.reason : error;
  } finally {
    bridge.callers.delete(caller);
  }
}

function bridgeFor(client: Client): Bridge {
  const known = bridges.get(client);
  if (known) return known;
  const bridge: Bridge = {
    current: new AsyncLocalStorage(),
    callers: new Set(),
    cutOff: new Set(),
    cutOffMore: false,
    links: new Map(),
  };
  try {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const { ctx } = route(bridge);
      const params = request.params;
      const withdraw = new AbortController();
      const withdrawn = () =>
        withdraw.abort(
          new Error("The MCP server withdrew the elicitation (it was cancelled or the connection closed)."),
        );
      if (extra.signal.aborted) withdrawn();
      extra.signal.addEventListener("abort", withdrawn, { once: true });
      // A URL elicitation the MCP server reports complete settles as accepted: the person did what the link asked.
      let complete = () => {};
      const completed =
        params.mode === "url"
          ? new Promise<{ value: Record<string, never>; reason: string }>((resolve) => {
              complete = () => resolve({ value: {}, reason: completedAtLink });
              const links = bridge.links.get(params.elicitationId) ?? new Set();
              bridge.links.set(params.elicitationId, links.add(complete));
            })
          : undefined;
      try {
        const answer = await ctx.ask({
          ...elicitationQuestion(params),
          signal: withdraw.signal,
          ...(completed ? { answeredElsewhere: completed } : {}),
        });
        // A stopped turn answers the question as cancelled: to the MCP server, the person cancelled.
        return elicitResult(answer, params.mode === "url" ? "url" : "form");
      } catch (error) {
        // The host leaves the turn (it stops, or another instance took it over): the MCP server
        // hears that much, not the host's own words about its sessions.
        if (ctx.signal.aborted && error === ctx.signal.reason) throw new Error(hostLeft);
        throw error;
      } finally {
        extra.signal.removeEventListener("abort", withdrawn);
        if (params.mode === "url") {
          const links = bridge.links.get(params.elicitationId);
          links?.delete(complete);
          if (links?.size === 0) bridge.links.delete(params.elicitationId);
        }
      }
    });
  } catch (error) {
    throw new TypeError(
      "withElicitations needs an MCP Client that declares the elicitation capability: " +
        "new Client(info, { capabilities: elicitationCapabilities }) (from @hitl-kit/mcp).",
      { cause: error },
    );
  }
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    for (const complete of bridge.links.get(notification.params.elicitationId) ?? []) complete();
  });
  bridges.set(client, bridge);
  return bridge;
}

/**
 * The tool call an elicitation belongs to: the one whose async context it arrived in, or
 * else the only one running — unless another session's call may still be asking: the
 * context names a call of another session that has ended, or a call of another session on
 * this client ended without its MCP answer. A question is never shown to another person.
 */
function route(bridge: Bridge): Caller {
  const current = bridge.current.getStore();
  if (current && bridge.callers.has(current)) return current;
  if (bridge.callers.size === 0) {
    throw refusal(
      "No person can answer this elicitation: the client is not running a tool call inside withElicitations(client, ctx, …).",
    );
  }
  if (bridge.callers.size > 1) {
    throw refusal(
      `${bridge.callers.size} hitl-kit tool calls share this MCP client and the transport does not say which one ` +
        "this elicitation belongs to; give each session (or call) its own Client.",
    );
  }
  const [only] = bridge.callers as Set<Caller>;
  const session = only!.ctx.sessionId;
  const othersCutOff = bridge.cutOffMore || bridge.cutOff.size > (bridge.cutOff.has(session) ? 1 : 0);
  if (othersCutOff || (current && current.ctx.sessionId !== session)) {
    throw refusal(
      "No person can answer this elicitation: it may come from a tool call of another session that has ended " +
        "(stopped, timed out or failed) while the MCP server went on, so it is not shown to the one call running; " +
        "give each session its own Client.",
    );
  }
  return only!;
}

/** An error the SDK answers the MCP server with as is (an `McpError` would repeat its "MCP error -32600:" prefix). */
function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidRequest });
}
