import { AsyncLocalStorage } from "node:async_hooks";
import type { ToolContext } from "@hitl-kit/server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
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
  /** Open URL elicitations by id: called when the MCP server says one is complete, it settles the person's request. */
  readonly links: Map<string, () => void>;
}

const bridges = new WeakMap<Client, Bridge>();

/** Reason given when the MCP server reports a URL elicitation complete before the person answered. */
const completedAtLink = "The MCP server reported this elicitation complete.";

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
 * implement(bookTable, (input, ctx) =>
 *   withElicitations(client, ctx, () =>
 *     client.callTool({ name: "book_table", arguments: input }, undefined, { signal: ctx.signal, timeout: 15 * 60_000 }),
 *   ),
 * );
 */
export async function withElicitations<T>(client: Client, ctx: ToolContext, run: () => Promise<T>): Promise<T> {
  const bridge = bridgeFor(client);
  const caller: Caller = { ctx };
  bridge.callers.add(caller);
  try {
    return await bridge.current.run(caller, run);
  } finally {
    bridge.callers.delete(caller);
  }
}

function bridgeFor(client: Client): Bridge {
  const known = bridges.get(client);
  if (known) return known;
  const bridge: Bridge = { current: new AsyncLocalStorage(), callers: new Set(), links: new Map() };
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
      const completed =
        params.mode === "url"
          ? new Promise<{ value: Record<string, never>; reason: string }>((resolve) =>
              bridge.links.set(params.elicitationId, () => resolve({ value: {}, reason: completedAtLink })),
            )
          : undefined;
      try {
        const answer = await ctx.ask({
          ...elicitationQuestion(params),
          signal: withdraw.signal,
          ...(completed ? { answeredElsewhere: completed } : {}),
        });
        return elicitResult(answer, params.mode === "url" ? "url" : "form");
      } finally {
        extra.signal.removeEventListener("abort", withdrawn);
        if (params.mode === "url") bridge.links.delete(params.elicitationId);
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
    bridge.links.get(notification.params.elicitationId)?.();
  });
  bridges.set(client, bridge);
  return bridge;
}

/** The tool call an elicitation belongs to: the one whose async context it arrived in, or the only one running. */
function route(bridge: Bridge): Caller {
  const current = bridge.current.getStore();
  if (current && bridge.callers.has(current)) return current;
  if (bridge.callers.size === 1) return [...bridge.callers][0]!;
  if (bridge.callers.size === 0) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      "No person can answer this elicitation: the client is not running a tool call inside withElicitations(client, ctx, …).",
    );
  }
  throw new McpError(
    ErrorCode.InvalidRequest,
    `${bridge.callers.size} hitl-kit tool calls share this MCP client and the transport does not say which one ` +
      "this elicitation belongs to; give each session (or call) its own Client.",
  );
}
