import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiClient } from "@hitl-kit/client";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { scriptedModel } from "@hitl-kit/server";
import { type ChatAppOptions, createChatApp } from "../server/chat-app.js";
import { demoScript } from "../server/demo-script.js";

/** A temporary folder, removed by `cleanup`. */
export function tempDir(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), "hitl-chat-"));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The demo server in process, on a temporary SQLite file: the real runtime, tools and
 * routes, with the demo script streaming at full speed unless another model is given.
 */
export function startChat(options: Partial<ChatAppOptions> = {}) {
  const dir = tempDir();
  const app = createChatApp({
    dataDir: dir.path,
    expireAfterMs: undefined,
    model: { model: scriptedModel(demoScript), label: "scripted" },
    logger: { warn: () => {}, error: () => {} },
    ...options,
  });
  // One browser: the identity cookie the server sets is sent back, as a cookie jar does.
  let cookie: string | undefined;
  const fetch = async (url: string, init?: RequestInit) => {
    const request = new Request(url, init);
    if (cookie) request.headers.set("cookie", cookie);
    const response = await app.handler(request);
    const set = response.headers.getSetCookie()[0];
    if (set) cookie = set.split(";")[0];
    return response;
  };
  /** The protocol's client, as the browser app uses it. */
  const api = createApiClient({ url: "http://127.0.0.1/api/agent", fetch });
  /** A raw request to any route of the demo server (for testing the routes themselves). */
  const call = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
    const response = await fetch(`http://127.0.0.1${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("json") && text ? JSON.parse(text) : undefined;
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    return { status: response.status, headers: response.headers, text, body: json as any };
  };
  const chat = {
    app,
    api,
    call,
    session: async (): Promise<string> => (await api.createSession()).sessionId,
    snapshot: (id: string) => api.getSnapshot(id),
    events: (id: string): Promise<ProtocolEvent[]> => app.runtime.readEvents(id, 0),
    /** Sends a message and waits until the turn has finished or parked. */
    async send(id: string, text: string) {
      const sent = await api.sendMessage(id, text);
      await app.runtime.idle();
      return sent;
    },
    /** Answers the one open request and waits until the turn has finished or parked again; a refusal rejects with its `ApiError`. */
    async answer(id: string, response: { action: "accept" | "decline" | "cancel"; value?: unknown; reason?: string }) {
      const [request] = (await chat.snapshot(id)).pending;
      if (!request) throw new Error("No request is open.");
      const answered = await api.respond(id, [{ requestId: request.requestId, ...response }]);
      await app.runtime.idle();
      return answered;
    },
    /** The open request's tool, or undefined. */
    openTool: async (id: string) => (await chat.snapshot(id)).pending[0]?.toolName,
    /** The text of the newest assistant message. */
    async lastReply(id: string): Promise<string> {
      const messages = (await chat.snapshot(id)).messages.filter((m) => m.role === "assistant");
      return (messages.at(-1)?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    },
    async close() {
      await app.close();
      dir.cleanup();
    },
  };
  return chat;
}

/** Every tool call has exactly one result, in a session's events. */
export function unansweredCalls(events: ProtocolEvent[]): string[] {
  const results = new Map<string, number>();
  for (const event of events) {
    if (event.type === "tool.called") results.set(event.toolCallId, results.get(event.toolCallId) ?? 0);
    if (event.type === "tool.result") results.set(event.toolCallId, (results.get(event.toolCallId) ?? 0) + 1);
  }
  return [...results].filter(([, count]) => count !== 1).map(([id]) => id);
}
