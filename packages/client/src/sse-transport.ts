import { parseSnapshot } from "@hitl-kit/protocol";
import type { BackoffOptions } from "./backoff.js";
import { type FetchLike, requestJson } from "./http-json.js";
import { openEventStream } from "./open-event-stream.js";
import type { AgentCommand, Transport } from "./transport.js";

/** Options of {@link sseTransport}. */
export interface SseTransportOptions {
  /** The protocol's base, such as `/api/agent` or `http://127.0.0.1:3000/api/agent`. */
  url: string;
  /** The `fetch` to use (default: the global one), to add credentials or test a flaky network. */
  fetch?: FetchLike;
  /** Headers sent with every request, or a function read before each one (for a token that refreshes). */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /** How the event stream waits before reconnecting. */
  reconnect?: BackoffOptions;
}

const commandPath: Record<Exclude<AgentCommand["type"], "delete">, string> = {
  message: "messages",
  responses: "responses",
  cancel: "cancel",
};

/**
 * The default transport: commands as JSON `POST`s and events over one SSE stream read with
 * `fetch`, which reconnects with exponential backoff and `Last-Event-ID` when it drops.
 * @example
 * const client = createAgentClient({ transport: sseTransport({ url: "/api/agent", headers: () => auth() }) });
 */
export function sseTransport(options: SseTransportOptions): Transport {
  const base = options.url.replace(/\/+$/, "");
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sessionUrl = (sessionId: string) => `${base}/sessions/${encodeURIComponent(sessionId)}`;
  const headersWith = async (extra: Record<string, string>) => {
    const given = typeof options.headers === "function" ? await options.headers() : options.headers;
    const headers = new Headers(given);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return headers;
  };
  const postJson = async (url: string, body: unknown) =>
    requestJson(fetch, url, {
      method: "POST",
      headers: await headersWith({ "content-type": "application/json", accept: "application/json" }),
      body: JSON.stringify(body),
    });

  return {
    async createSession() {
      const { body } = await postJson(`${base}/sessions`, {});
      return { sessionId: (body as { sessionId: string }).sessionId };
    },
    async loadSnapshot(sessionId, page = {}) {
      const query = new URLSearchParams();
      if (page.before !== undefined) query.set("before", page.before);
      if (page.limit !== undefined) query.set("limit", String(page.limit));
      const url = `${sessionUrl(sessionId)}${query.size > 0 ? `?${query}` : ""}`;
      const { body } = await requestJson(fetch, url, { headers: await headersWith({ accept: "application/json" }) });
      return parseSnapshot(body);
    },
    async send(sessionId, command) {
      if (command.type === "delete") {
        const headers = await headersWith({ accept: "application/json" });
        return requestJson(fetch, sessionUrl(sessionId), { method: "DELETE", headers });
      }
      // Every command is a JSON body (`/cancel` sends `{}`): the server refuses others, as a CSRF defence.
      const { type, ...body } = command;
      return postJson(`${sessionUrl(sessionId)}/${commandPath[type]}`, body);
    },
    openStream(sessionId, streamOptions) {
      const url = `${sessionUrl(sessionId)}/events`;
      const connect = async (lastSeq: number, signal: AbortSignal) =>
        fetch(url, {
          headers: await headersWith({ accept: "text/event-stream", "last-event-id": String(lastSeq) }),
          signal,
        });
      return openEventStream(connect, {
        ...streamOptions,
        sessionId,
        ...(options.reconnect ? { backoff: options.reconnect } : {}),
      });
    },
  };
}
