import { defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { implement, memoryStore, type SessionStore, scriptedModel } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { checkOneResultPerCall, startServer } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";
import { pickTemplate, serverTools } from "./tools.js";

/** Text no store may refuse or change: a NUL, half a surrogate pair, and characters beyond the BMP. */
const odd = "nul \u0000 and half an emoji \ud83d, then 😀 and e\u0301";

const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  inputSchema: z.object({ path: z.string() }),
});
const tools = [...serverTools, implement(readFile, async ({ path }) => ({ content: `${path}: ${odd}` }))];

const postgres = throwawayDatabase("text");
const stores: [string, (() => SessionStore) | undefined][] = [
  ["memory", memoryStore],
  ["SQLite", undefined], // the harness's own, on a temporary file
  ...(postgresAvailable
    ? [
        ["Postgres", () => postgresStore(postgres.url(), { schema: postgres.schema(), poolSize: 2 })] as [
          string,
          () => SessionStore,
        ],
      ]
    : []),
];

let server: ReturnType<typeof startServer> | undefined;
afterEach(() => server?.close());

describe.each(stores)("on %s", (_name, store) => {
  const open = (script: Parameters<typeof scriptedModel>[0]) => {
    server = startServer(scriptedModel(script), { tools, ...(store ? { store: store() } : {}) });
    return server;
  };

  it("keeps a NUL and half a surrogate pair from the person, the model, a tool and an answer, and ends every turn", async () => {
    const seen: unknown[] = [];
    const { call, runtime, snapshot, events } = open(({ step, lastUserText, lastResults }) => {
      seen.push({ lastUserText, lastResults: lastResults.map((result) => result.output) });
      if (step === 0) {
        return {
          text: `Reading ${odd}`,
          toolCalls: [
            { toolName: "read_file", input: { path: odd } },
            { toolName: pickTemplate.name, input: { templates: [odd] } },
          ],
        };
      }
      if (step === 2) return { toolCalls: [{ toolName: pickTemplate.name, input: { templates: [odd] } }] };
      return { text: "Done." };
    });
    const id = (await call("POST", "/sessions", {})).body.sessionId;
    expect((await call("POST", `/sessions/${id}/messages`, { text: odd })).status).toBe(202);
    await runtime.idle();
    const parked = await snapshot(id);
    expect(parked.status).toBe("waiting");
    expect(parked.pending[0]?.input).toEqual({ templates: [odd] });
    const answer = { requestId: parked.pending[0]!.requestId, action: "accept", value: { templateId: odd } };
    expect((await call("POST", `/sessions/${id}/responses`, { responses: [answer] })).status).toBe(202);
    await runtime.idle();

    // A second turn, declined with a reason that holds the same text.
    expect((await call("POST", `/sessions/${id}/messages`, { text: "again" })).status).toBe(202);
    await runtime.idle();
    const declined = { requestId: (await snapshot(id)).pending[0]!.requestId, action: "decline", reason: odd };
    expect((await call("POST", `/sessions/${id}/responses`, { responses: [declined] })).status).toBe(202);
    await runtime.idle();

    const done = await snapshot(id);
    expect(done.status).toBe("idle");
    expect(done.messages[0]?.parts).toEqual([{ type: "text", text: odd }]);
    expect(done.messages[1]?.parts[0]).toEqual({ type: "text", text: `Reading ${odd}` });
    expect(checkOneResultPerCall(await events(id))).toEqual([]);
    expect((await call("GET", "/sessions")).body.sessions[0].title).toBe(odd);
    // What the model was given back: the person's text, the tool's result and the answer, as they were.
    expect(seen[1]).toEqual({
      lastUserText: odd,
      lastResults: [{ content: `${odd}: ${odd}` }, { templateId: odd }],
    });
    expect(JSON.stringify(seen[3])).toContain(JSON.stringify(odd).slice(1, -1));
  });

  it("titles a session by its first message without cutting an emoji in half", async () => {
    const { call, runtime, snapshot } = open([{ text: "One." }, { text: "Two." }]);
    const id = (await call("POST", "/sessions", {})).body.sessionId;
    const first = `${"a".repeat(79)}😀 and more`;
    expect((await call("POST", `/sessions/${id}/messages`, { text: first })).status).toBe(202);
    await runtime.idle();
    expect((await call("GET", "/sessions")).body.sessions[0].title).toBe("a".repeat(79));
    expect((await call("POST", `/sessions/${id}/messages`, { text: "and then" })).status).toBe(202);
    await runtime.idle();
    expect((await snapshot(id)).messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});
