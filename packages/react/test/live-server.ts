import { join } from "node:path";
import { defineClientTool } from "@hitl-kit/protocol";
import {
  createAgentRuntime,
  createFetchHandler,
  type Script,
  type ScriptedModelOptions,
  scriptedModel,
  serve,
  sqliteStore,
} from "@hitl-kit/server";
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

/** A real runtime on a loopback port, with the SQLite store on a temporary file. */
export async function startLiveServer(script: Script, options?: ScriptedModelOptions) {
  const dir = tempDir();
  const store = sqliteStore(join(dir.path, "react.sqlite"));
  const runtime = createAgentRuntime({ model: scriptedModel(script, options), tools: Object.values(tools), store });
  const server = await serve(createFetchHandler(runtime), { port: 0 });
  return {
    url: `${server.url}/api/agent`,
    runtime,
    async close() {
      await server.close();
      await runtime.close();
      await store.close();
      dir.cleanup();
    },
  };
}
