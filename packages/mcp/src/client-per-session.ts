import type { ToolContext } from "@hitl-kit/server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { withElicitations } from "./with-elicitations.js";

/** Options of {@link clientPerSession}. */
export interface ClientPerSessionOptions {
  /** How long a session's client stays connected with no call running before it is closed (default 5 minutes). */
  idleMs?: number;
}

/** The MCP clients of a hitl-kit server's sessions, one each: see {@link clientPerSession}. */
export interface ClientPerSession {
  /**
   * Runs `run` with the session's own client, inside {@link withElicitations}, so the MCP
   * server's elicitations reach that session's person. The client is connected on the
   * session's first call, and again on the next call after it closed (the MCP server
   * exited, the connection dropped).
   */
  call<T>(ctx: ToolContext, run: (client: Client) => Promise<T>): Promise<T>;
  /** Closes every session's client (at shutdown); a later call connects again. */
  close(): Promise<void>;
}

interface Entry {
  client: Promise<Client>;
  /** The calls running on it. */
  calls: number;
  idle?: ReturnType<typeof setTimeout>;
}

/**
 * One MCP client per hitl-kit session, so that the MCP server's questions go to the right
 * person however sessions overlap. Over stdio or HTTP an elicitation does not say which
 * request it belongs to, so a client shared by sessions can only route one call's questions
 * at a time, and none once a session's call ended without its MCP answer (a Stop): that
 * session's MCP tool may still be asking (see {@link withElicitations}). `connect` makes
 * and connects a client declaring {@link elicitationCapabilities}; it is closed after
 * `idleMs` with no call running.
 * @example
 * const clients = clientPerSession(async () => {
 *   const client = new Client({ name: "my-host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
 *   await client.connect(new StdioClientTransport({ command: "node", args: ["bookings-server.js"] }));
 *   return client;
 * });
 * implement(bookTable, async (input, ctx) => {
 *   const result = await clients.call(ctx, (client) =>
 *     client.callTool({ name: "book_table", arguments: input }, undefined, { signal: ctx.signal, timeout: 15 * 60_000 }),
 *   );
 *   if (result.isError) throw new Error(JSON.stringify(result.content)); // else the call's one result is `ok`
 *   return result.structuredContent ?? result.content;
 * });
 */
export function clientPerSession(
  connect: (sessionId: string) => Promise<Client>,
  { idleMs = 5 * 60_000 }: ClientPerSessionOptions = {},
): ClientPerSession {
  const sessions = new Map<string, Entry>();
  const forget = (sessionId: string, entry: Entry) => {
    clearTimeout(entry.idle);
    if (sessions.get(sessionId) === entry) sessions.delete(sessionId);
  };
  const closeClient = (entry: Entry) => entry.client.then((client) => client.close()).catch(() => {});
  const entryFor = (sessionId: string): Entry => {
    const known = sessions.get(sessionId);
    if (known) return known;
    const entry: Entry = {
      calls: 0,
      client: connect(sessionId).then((client) => {
        // Closed (the MCP server exited): the session's next call connects again.
        const closed = client.onclose;
        client.onclose = () => {
          forget(sessionId, entry);
          closed?.();
        };
        return client;
      }),
    };
    entry.client.catch(() => forget(sessionId, entry));
    sessions.set(sessionId, entry);
    return entry;
  };
  return {
    async call(ctx, run) {
      const entry = entryFor(ctx.sessionId);
      entry.calls += 1;
      clearTimeout(entry.idle);
      try {
        const client = await entry.client;
        return await withElicitations(client, ctx, () => run(client));
      } finally {
        entry.calls -= 1;
        if (entry.calls === 0 && sessions.get(ctx.sessionId) === entry) {
          entry.idle = setTimeout(() => {
            forget(ctx.sessionId, entry);
            void closeClient(entry);
          }, idleMs);
          entry.idle.unref?.();
        }
      }
    },
    async close() {
      const entries = [...sessions.values()];
      for (const entry of entries) clearTimeout(entry.idle);
      sessions.clear();
      await Promise.all(entries.map(closeClient));
    },
  };
}
