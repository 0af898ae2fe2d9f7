import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createBookingsServer } from "./bookings-server.js";

// The bookings server over stdio, for any MCP host:
//   node --import tsx examples/mcp-booking/stdio.ts
await createBookingsServer().connect(new StdioServerTransport());
