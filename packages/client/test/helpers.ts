import { defineClientTool } from "@hitl-kit/protocol";
import {
  createAgentRuntime,
  createFetchHandler,
  memoryStore,
  type Script,
  type ScriptedModelOptions,
  scriptedModel,
  serve,
} from "@hitl-kit/server";
import { afterEach } from "vitest";
import { z } from "zod";
import type { AgentClient, ClientState, OutboxStorage } from "../src/index.js";

/** A client picker whose server-side schema also refuses a retired template, which its JSON Schema cannot say. */
export const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.string()).min(1) }),
  answerSchema: z
    .object({ templateId: z.string().min(1) })
    .refine((answer) => answer.templateId !== "retro", { message: "The retro template is retired." }),
  prompt: "Choose a template",
});

/** The model's call of {@link pickTemplate}. */
export const pickCall = { toolName: "pick_template", input: { templates: ["bold", "calm", "retro"] } };

/** Every request the server was sent, as `METHOD path`, for asserting what went over the wire. */
export type WireLog = string[];

/**
 * The real runtime and fetch handler on a loopback port, with a scripted model and the
 * memory store. `fetch` is the global fetch, logging each request's method and path.
 */
export async function startAgentServer(script: Script, modelOptions: ScriptedModelOptions = {}) {
  const store = memoryStore();
  const runtime = createAgentRuntime({
    model: scriptedModel(script, modelOptions),
    tools: [pickTemplate],
    store,
    logger: { warn: () => {}, error: () => {} },
  });
  // Every request is the same person, who owns the sessions the tests create on the server side too.
  const served = await serve(createFetchHandler(runtime, { heartbeatMs: 60_000, identify: () => "tester" }), {
    port: 0,
  });
  const wire: WireLog = [];
  const fetch = async (input: string, init?: RequestInit) => {
    wire.push(`${init?.method ?? "GET"} ${new URL(input).pathname}`);
    return globalThis.fetch(input, init);
  };
  return {
    url: `${served.url}/api/agent`,
    runtime,
    wire,
    fetch,
    async close() {
      await served.close();
      await runtime.close();
      await store.close();
    },
  };
}

/** A `sessionStorage` stand-in, with its items to read. */
export function memoryStorage() {
  const items = new Map<string, string>();
  const outboxStorage: OutboxStorage = {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
  return { items, outboxStorage };
}

/** Subscribes a listener that does nothing, as a mounted UI would, so the client runs. */
export function follow(client: AgentClient): AgentClient {
  client.subscribe(() => {});
  return client;
}

/** Resolves with the client's state once `predicate` holds; rejects after `timeoutMs` with the last state. */
export function waitFor(client: AgentClient, predicate: (state: ClientState) => boolean, timeoutMs = 5_000) {
  return new Promise<ClientState>((resolve, reject) => {
    if (predicate(client.getSnapshot())) return resolve(client.getSnapshot());
    const timer = setTimeout(() => {
      stop();
      const { status, connection, lastSeq, error } = client.getSnapshot();
      reject(new Error(`waitFor timed out; state: ${JSON.stringify({ status, connection, lastSeq, error })}`));
    }, timeoutMs);
    const stop = client.subscribe((state) => {
      if (!predicate(state)) return;
      clearTimeout(timer);
      stop();
      resolve(state);
    });
  });
}

/** The text parts of a message, joined. */
export function textOf(state: ClientState, index = -1): string {
  const message = state.messages.at(index);
  return (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

/** What a test starts and must close: each `add`ed thing is closed after the test, the last added first. */
export function closedAfterEach() {
  let open: { close(): unknown }[] = [];
  afterEach(async () => {
    const closing = open.reverse();
    open = [];
    for (const thing of closing) await thing.close();
  });
  return {
    add<T extends { close(): unknown }>(thing: T): T {
      open.push(thing);
      return thing;
    },
  };
}
