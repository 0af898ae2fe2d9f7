import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { eventFrameDecoder, type ProtocolEvent, type SessionSnapshot } from "@hitl-kit/protocol";
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
  type SessionStore,
} from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { serverTools } from "./tools.js";

/** A temporary folder, removed by `cleanup`. */
export function tempDir(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), "hitl-kit-"));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A runtime with the SQLite store on a temporary file, and its fetch handler, called in process. */
export function startServer(
  model: LanguageModelV4,
  options: Partial<AgentRuntimeOptions> & { http?: FetchHandlerOptions; store?: SessionStore } = {},
) {
  const dir = tempDir();
  const store = options.store ?? sqliteStore(join(dir.path, "hitl.sqlite"));
  const runtime = createAgentRuntime({ tools: serverTools, logger: quiet, ...options, model, store });
  const handler = createFetchHandler(runtime, { heartbeatMs: 60_000, rateLimit: false, ...options.http });
  const { send, call } = browser(handler);
  return {
    runtime,
    store,
    handler,
    /** Sends a request as the harness's one browser (with its identity cookie). */
    send,
    call,
    async session(): Promise<string> {
      return (await call("POST", "/sessions", {})).body.sessionId;
    },
    snapshot: async (sessionId: string) => (await call("GET", `/sessions/${sessionId}`)).body as SessionSnapshot,
    events: (sessionId: string, after = 0) => runtime.readEvents(sessionId, after),
    async close() {
      await runtime.close();
      await store.close();
      dir.cleanup();
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Called = { status: number; headers: Headers; body: any };

/**
 * One browser in front of a fetch handler: it keeps the identity cookie the handler sets
 * and sends it back, as a cookie jar does. Two of them are two people.
 */
export function browser(handler: FetchHandler, base = "http://127.0.0.1/api/agent") {
  let cookie: string | undefined;
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookie && !headers.has("cookie")) headers.set("cookie", cookie);
    const response = await handler(new Request(`${base}${path}`, { ...init, headers }));
    const set = response.headers.getSetCookie()[0];
    if (set) cookie = set.split(";")[0];
    return response;
  };
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Called> => {
    const response = await send(path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  return {
    send,
    call,
    /** The identity cookie, as sent back (`name=value`). */
    get cookie() {
      return cookie;
    },
  };
}

/** A logger that keeps what the runtime reports, for assertions, instead of printing it. */
export const quiet = { warn: () => {}, error: () => {} };

/** Waits until the runtime has stopped driving every session. */
export const settle = (runtime: AgentRuntime) => runtime.idle();

/** Reads a session's SSE response into events until `until` says stop (or the stream ends). */
export async function readSse(response: Response, sessionId: string, until: (events: ProtocolEvent[]) => boolean) {
  const events: ProtocolEvent[] = [];
  const decode = eventFrameDecoder(sessionId);
  const reader = response
    .body!.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  while (!until(events)) {
    const { done, value } = await reader.read();
    if (done) break;
    events.push(decode(value));
  }
  await reader.cancel();
  return events;
}

/** An event as a client receives it: a streamed delta without the time the store keeps. */
export function asReceived(event: ProtocolEvent): ProtocolEvent {
  if (event.type !== "text.delta" && event.type !== "reasoning.delta") return event;
  const { at: _at, ...received } = event;
  return received;
}

/**
 * Invariant 1 over a session's log: every `tool.called` has an id of its own and exactly
 * one `tool.result`, after it. Returns the problems found (none when it holds).
 */
export function checkOneResultPerCall(events: ProtocolEvent[]): string[] {
  const problems: string[] = [];
  const called = new Map<string, number>();
  const results = new Map<string, number>();
  for (const event of events) {
    if (event.type === "tool.called" && called.has(event.toolCallId)) {
      problems.push(`${event.toolCallId} is called twice`);
    }
    if (event.type === "tool.called") called.set(event.toolCallId, event.seq);
    if (event.type === "tool.result") {
      if (!called.has(event.toolCallId)) problems.push(`result before call: ${event.toolCallId}`);
      results.set(event.toolCallId, (results.get(event.toolCallId) ?? 0) + 1);
    }
  }
  for (const id of called.keys()) {
    const count = results.get(id) ?? 0;
    if (count !== 1) problems.push(`${id} has ${count} results`);
  }
  return problems;
}
