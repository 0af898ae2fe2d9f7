import { defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRuntime, implement, memoryStore } from "../src/index.js";
import { checkOneResultPerCall, quiet, startServer } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";

const report = defineTool({ name: "export_report", description: "Exports a report.", inputSchema: z.object({}) });

let server: ReturnType<typeof startServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs one turn whose tool returns `value`; answers the call's one result and what the model read of it. */
async function returning(value: () => unknown, options: { maxToolResultBytes?: number } = {}) {
  const { model, prompts } = recordingModel([
    { toolCalls: [{ toolName: "export_report", input: {} }] },
    { text: "Done." },
  ]);
  server = startServer(model, { tools: [implement(report, async () => value())], logger: quiet, ...options });
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "export" });
  await vi.waitFor(async () => expect((await server!.snapshot(id)).status).toBe("idle"));
  const events = await server.events(id);
  expect(checkOneResultPerCall(events)).toEqual([]);
  const [result] = events.filter((event) => event.type === "tool.result");
  return { result, modelRead: lastToolResults(prompts[1]) };
}

describe("a tool's return value as its call's result", () => {
  it("keeps JSON as it is, undefined as null, and a Map as JSON.stringify makes it", async () => {
    expect((await returning(() => ({ rows: [1, 2], at: "2026-11-28" }))).result).toMatchObject({
      outcome: "ok",
      output: { rows: [1, 2], at: "2026-11-28" },
    });
    expect((await returning(() => undefined)).result).toMatchObject({ outcome: "ok", output: null });
    expect((await returning(() => ({ seen: new Map([["a", 1]]) }))).result).toMatchObject({ output: { seen: {} } });
  });

  it("says the tool ran, and may have taken effect, when JSON cannot carry what it returned", async () => {
    const { result, modelRead } = await returning(() => ({ charged: 10n }));
    expect(result).toMatchObject({
      outcome: "error",
      output: {
        message:
          "The tool export_report ran, but what it returned cannot be sent as JSON (Do not know how to serialize a BigInt), so its result is this error; it may have taken effect.",
      },
    });
    expect(JSON.stringify(modelRead)).toContain("may have taken effect");
  });

  it("keeps no result past maxToolResultBytes: the error says how big it was and to return less", async () => {
    const rows = Array.from({ length: 100 }, (_, index) => ({ id: index, name: `row ${index}` }));
    const small = await returning(() => ({ rows }), { maxToolResultBytes: 10_000 });
    expect(small.result).toMatchObject({ outcome: "ok" });
    const big = await returning(() => ({ rows }), { maxToolResultBytes: 1_000 });
    expect(big.result).toMatchObject({
      outcome: "error",
      output: {
        message: expect.stringMatching(
          /^The tool export_report ran, but its result is \d+ bytes of JSON, over the 1000 this server keeps \(maxToolResultBytes\).*Return less/,
        ),
      },
    });
  });

  it("refuses a limit that is not more than 0 bytes", () => {
    expect(() =>
      createAgentRuntime({ model: recordingModel([]).model, store: memoryStore(), maxToolResultBytes: 0 }),
    ).toThrow("maxToolResultBytes must be more than 0 bytes (Infinity: no limit), not 0.");
  });
});
