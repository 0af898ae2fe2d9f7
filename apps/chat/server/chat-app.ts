import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentRuntime,
  createAgentRuntime,
  createFetchHandler,
  type FetchHandlerOptions,
  type SessionStore,
} from "@hitl-kit/server";
import { postgresStore } from "@hitl-kit/server/postgres";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { mediaLibrary } from "./catalog.js";
import type { ChatConfig } from "./chat-config.js";
import { demoTools } from "./demo-tools.js";
import { staticFiles } from "./static-files.js";
import { systemPrompt } from "./system-prompt.js";

/** Options of {@link createChatApp}. */
export interface ChatAppOptions
  extends Pick<ChatConfig, "dataDir" | "expireAfterMs" | "model">,
    Partial<Pick<ChatConfig, "trustProxy" | "databaseUrl">>,
    Pick<FetchHandlerOptions, "identify"> {
  /** The built app to serve (`apps/chat/dist`); without it, only `/api` answers. */
  distDir?: string;
  /** Where the runtime reports what it cannot tell anyone (default: console). */
  logger?: Pick<Console, "warn" | "error">;
}

/** The demo's runtime, store and one fetch handler for the API and the app. */
export interface ChatApp {
  handler: (request: Request, platform?: unknown) => Promise<Response>;
  runtime: AgentRuntime;
  store: SessionStore;
  /** Stops the runtime, then closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the demo server: `/api/agent/*` (wire protocol v1), `GET /api/media` (the media
 * library as JSON) and, with `distDir`, the built app with its SPA fallback.
 * @example
 * const app = createChatApp({ ...readChatConfig(process.env), distDir });
 * await serve(app.handler, { port: 3000 });
 */
export function createChatApp(options: ChatAppOptions): ChatApp {
  // One process: SQLite in the data folder. Several behind a load balancer: one Postgres database.
  let store: SessionStore;
  if (options.databaseUrl) store = postgresStore(options.databaseUrl);
  else {
    mkdirSync(options.dataDir, { recursive: true });
    store = sqliteStore(join(options.dataDir, "chat.sqlite"));
  }
  const runtime = createAgentRuntime({
    model: options.model.model,
    tools: demoTools,
    store,
    system: systemPrompt,
    ...(options.expireAfterMs === undefined ? {} : { expireAfter: options.expireAfterMs }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // Without `identify`, each browser gets an anonymous identity cookie and sees only its own chats.
  // A real app passes its auth here: identify: async (request) => (await getSession(request))?.userId
  const agent = createFetchHandler(runtime, {
    basePath: "/api/agent",
    ...(options.identify ? { identify: options.identify } : {}),
    ...(options.trustProxy ? { trustProxy: true } : {}),
  });
  const files = options.distDir ? staticFiles(options.distDir) : undefined;

  async function handler(request: Request, platform?: unknown): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/api/agent" || pathname.startsWith("/api/agent/")) return agent(request, platform);
    if (pathname === "/api/media") {
      if (request.method !== "GET") return json(405, { error: { code: "method_not_allowed", message: "Use GET." } });
      return json(200, { items: mediaLibrary });
    }
    if (pathname.startsWith("/api/") || !files) {
      return json(404, { error: { code: "not_found", message: `No route ${request.method} ${pathname}.` } });
    }
    return files(request);
  }

  return {
    handler,
    runtime,
    store,
    async close() {
      await runtime.close();
      await store.close();
    },
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
