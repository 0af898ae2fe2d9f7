import { elicitationCapabilities } from "@hitl-kit/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createBookingsServer } from "./bookings-server.js";

/**
 * An MCP client connected to the bookings server in process (`InMemoryTransport`), made
 * on first use and shared by every session: in process, each question follows its call's
 * async context to its own person. A host that runs the server as its own process connects
 * a `StdioClientTransport` to `stdio.ts` instead, with a client per session
 * (`clientPerSession` from @hitl-kit/mcp): over stdio a question carries no such context.
 */
export function bookingsClient(): Promise<Client> {
  connected ??= (async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createBookingsServer().connect(serverSide);
    const client = new Client({ name: "hitl-kit-demo", version: "1.0.0" }, { capabilities: elicitationCapabilities });
    await client.connect(clientSide);
    return client;
  })();
  return connected;
}

let connected: Promise<Client> | undefined;
