import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineClientTool } from "@hitl-kit/protocol";
import { createAgentRuntime, createFetchHandler, scriptedModel } from "@hitl-kit/server";
import { postgresStore } from "@hitl-kit/server/postgres";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { z } from "zod";

/** The client tool every benchmark session parks on. */
export const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a template.",
  inputSchema: z.object({ templates: z.array(z.string()) }),
  answerSchema: z.object({ templateId: z.string() }),
});

/**
 * The runtime with the SQLite store on a temporary file (or, with `databaseUrl`, the
 * Postgres store in `schema`) and a scripted model that, at every step, writes a few
 * words and parks on `pick_template` again — so an answered session is soon parked once more.
 */
export function startRuntime(options: { words?: number; databaseUrl?: string; schema?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "hitl-bench-"));
  const store = options.databaseUrl
    ? postgresStore(options.databaseUrl, { ...(options.schema ? { schema: options.schema } : {}), poolSize: 10 })
    : sqliteStore(join(dir, "bench.sqlite"));
  const text = "Pick a template please. ".repeat(Math.ceil((options.words ?? 4) / 4));
  const model = scriptedModel(() => ({
    text,
    toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "bold"] } }],
  }));
  const runtime = createAgentRuntime({
    model,
    tools: [pickTemplate],
    store,
    maxSteps: 1_000_000,
    logger: { warn: () => {}, error: () => {} },
  });
  // One principal for every benchmark client, and no rate limits: the benchmarks are the flood.
  const handler = createFetchHandler(runtime, { heartbeatMs: 60_000, identify: () => "bench", rateLimit: false });
  /** Calls the fetch handler in process and returns the JSON body. */
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await handler(
      new Request(`http://127.0.0.1/api/agent${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      }),
    );
    return (await response.json()) as Record<string, unknown>;
  };
  /** Creates a session and parks it on its first request. */
  const park = async () => {
    const { sessionId } = (await call("POST", "/sessions", {})) as { sessionId: string };
    await call("POST", `/sessions/${sessionId}/messages`, { text: "make me a poster" });
    return sessionId;
  };
  return {
    runtime,
    store,
    handler,
    call,
    park,
    async close() {
      await runtime.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `task` over `items` with at most `limit` at once. */
export async function inBatches<T>(items: readonly T[], limit: number, task: (item: T) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += limit)
    await Promise.all(items.slice(start, start + limit).map(task));
}
