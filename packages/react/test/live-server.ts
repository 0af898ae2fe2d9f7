import { join } from "node:path";
import { defineClientTool } from "@hitl-kit/protocol";
import {
  createAgentRuntime,
  createFetchHandler,
  type Script,
  type ScriptedModelOptions,
  scriptedModel,
  serve,
} from "@hitl-kit/server";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { z } from "zod";
import { tempDir } from "../../server/test/harness.js";

/** The tools the React tests park on; `pick_template`'s server schema refuses "retired". */
export const tools = {
  pickTemplate: defineClientTool({
    name: "pick_template",
    description: "Choose a template.",
    inputSchema: z.object({ templates: z.array(z.string()) }),
    answerSchema: z.object({ templateId: z.string() }).refine((answer) => answer.templateId !== "retired", {
      message: "That template is retired.",
      path: ["templateId"],
    }),
  }),
  pickSize: defineClientTool({
    name: "pick_size",
    description: "Choose a size.",
    inputSchema: z.object({}),
    answerSchema: z.object({ size: z.enum(["small", "large"]) }),
  }),
};

/**
 * A real runtime on a loopback port, with the SQLite store on a temporary file. It logs
 * every request (`METHOD path`) and counts the event streams it serves while they are open.
 */
export async function startLiveServer(script: Script, options?: ScriptedModelOptions) {
  const dir = tempDir();
  const store = sqliteStore(join(dir.path, "react.sqlite"));
  const runtime = createAgentRuntime({ model: scriptedModel(script, options), tools: Object.values(tools), store });
  const handler = createFetchHandler(runtime);
  const requests: string[] = [];
  const streams = { opened: 0, open: 0 };
  const server = await serve(
    async (request) => {
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      const response = await handler(request);
      return request.url.endsWith("/events") && response.body ? counted(response, streams) : response;
    },
    { port: 0 },
  );
  return {
    url: `${server.url}/api/agent`,
    runtime,
    requests,
    streams,
    async close() {
      await server.close();
      await runtime.close();
      await store.close();
      dir.cleanup();
    },
  };
}

/** The response with its body counted in `streams` from first byte until it ends or is cancelled. */
function counted(response: Response, streams: { opened: number; open: number }): Response {
  const reader = response.body!.getReader();
  let open = true;
  const end = () => {
    if (open) streams.open--;
    open = false;
  };
  streams.opened++;
  streams.open++;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      end();
      controller.close();
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
