import { elicitationCapabilities } from "@hitl-kit/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createBookingsServer } from "./bookings-server.js";

/**
 * An MCP client connected to the bookings server in process (`InMemoryTransport`), made
 * on first use. A host that runs the server as its own process connects a
 * `StdioClientTransport` to `stdio.ts` instead; nothing else changes.
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
