/**
 * A server process for the durability tests: the SQLite store at HITL_DB, a scripted
 * model, the shared test tools. It prints its URL on stdout. It kills itself (SIGKILL)
 * with HITL_CRASH=after-settle right after the write that settles a turn's last request,
 * before the turn resumes; with HITL_CRASH=mid-stream right after the model's second
 * streamed text delta is written; with HITL_CRASH=after-stop right after the write that
 * keeps a person's cancel, before the turn is stopped. HITL_CHUNK_DELAY_MS slows the words;
 * HITL_SCRIPT=slow-tool has the model call a tool that never ends.
 */
import { defineTool } from "@hitl-kit/protocol";
import { z } from "zod";
import {
  createAgentRuntime,
  createFetchHandler,
  implement,
  type ScriptedReply,
  type SessionStore,
  scriptedModel,
  serve,
} from "../../src/index.js";
import { sqliteStore } from "../../src/store/sqlite-store.js";
import { serverTools } from "../tools.js";

const store = sqliteStore(process.env.HITL_DB!);
let modelDeltas = 0;
const crashing: SessionStore = {
  ...store,
  async write(sessionId, batch) {
    const result = await store.write(sessionId, batch);
    if (process.env.HITL_CRASH === "after-settle" && batch.session?.status === "resuming")
      process.kill(process.pid, "SIGKILL");
    // The person's message is written with its turn.started; the model's deltas alone.
    const types = batch.events?.map((event) => event.type) ?? [];
    if (types.includes("text.delta") && !types.includes("turn.started")) modelDeltas++;
    if (process.env.HITL_CRASH === "mid-stream" && modelDeltas === 2) process.kill(process.pid, "SIGKILL");
    if (process.env.HITL_CRASH === "after-stop" && batch.session?.cancelRequested) process.kill(process.pid, "SIGKILL");
    return result;
  },
};

// Mid-stream, the words come slower than the runtime batches streamed text (8 ms), so each
// delta is a write of its own and the process dies with the message cut off.
// HITL_SCRIPT=slow-tool: the model calls a report tool that runs until the process dies.
const slowReport = implement(
  defineTool({ name: "write_report", description: "Writes a long report.", inputSchema: z.object({}) }),
  () => new Promise<never>(() => {}),
);
const script: ScriptedReply[] =
  process.env.HITL_SCRIPT === "slow-tool"
    ? [{ toolCalls: [{ toolName: "write_report", input: {} }] }, { text: "Report written." }]
    : [
        {
          text: "Publishing needs your approval.",
          toolCalls: [{ toolName: "publish_poster", input: { title: "Spring" } }],
        },
        { text: "Pick a template too.", toolCalls: [{ toolName: "pick_template", input: { templates: ["a", "b"] } }] },
        { text: "All done." },
      ];
const model = scriptedModel(script, {
  chunkDelayMs: Number(process.env.HITL_CHUNK_DELAY_MS ?? (process.env.HITL_CRASH === "mid-stream" ? 20 : 0)),
});
const runtime = createAgentRuntime({ model, tools: [...serverTools, slowReport], store: crashing });
await runtime.ready;
const { url } = await serve(createFetchHandler(runtime, { identify: () => "tester" }), { port: 0 });
process.stdout.write(`${url}\n`);
