import {
  EVENT_TYPES,
  eventFrameDecoder,
  type InputResponse,
  ProtocolError,
  type ProtocolEvent,
  parseErrorBody,
  parseSnapshot,
  type SessionSnapshot,
} from "@hitl-kit/protocol";
import { createParser } from "eventsource-parser";

/** A `fetch`-compatible function. */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/** Headers, or a function that gives them for each request (a fresh token, say). */
export type HeadersOption =
  | Record<string, string>
  | Headers
  | (() => Record<string, string> | Headers | Promise<Record<string, string> | Headers>);

/** How the transport reaches the server. */
export interface SessionHttpOptions {
  /** Where the hitl-kit fetch handler is mounted, such as `/api/agent`. */
  url: string;
  /** The `fetch` every request goes through (default `globalThis.fetch`), to add auth or test in process. */
  fetch?: FetchFunction;
  /** Headers added to every request, or a function called for each one. */
  headers?: HeadersOption;
  /** The `credentials` of every request (default `same-origin`, so the identity cookie goes along). */
  credentials?: RequestCredentials;
}

const knownTypes = new Set<string>(EVENT_TYPES);
/** How often a dropped event stream is reopened before the chat is told. */
const STREAM_RETRIES = 5;

/** The hitl-kit HTTP surface one transport uses: sessions, snapshots, commands and the event stream. */
export class SessionHttp {
  readonly #base: string;
  readonly #options: SessionHttpOptions;

  constructor(options: SessionHttpOptions) {
    if (typeof options.url !== "string" || options.url === "") {
      throw new Error("hitlChatTransport() needs the url of the hitl-kit handler, such as { url: '/api/agent' }.");
    }
    this.#base = options.url.replace(/\/+$/, "");
    this.#options = options;
  }

  /** Creates a session and answers its id. */
  async createSession(extra?: HeadersInit): Promise<string> {
    const body = (await this.#json("POST", "/sessions", {}, extra)) as { sessionId?: unknown };
    if (typeof body?.sessionId !== "string") throw new Error("The hitl-kit server created a session without an id.");
    return body.sessionId;
  }

  /** The session's snapshot, or `undefined` when the caller has no such session (404). */
  async snapshot(sessionId: string, extra?: HeadersInit): Promise<SessionSnapshot | undefined> {
    try {
      return parseSnapshot(await this.#json("GET", sessionPath(sessionId), undefined, extra));
    } catch (error) {
      if (error instanceof ProtocolError && error.code === "not_found") return undefined;
      throw error;
    }
  }

  sendMessage(sessionId: string, text: string, extra?: HeadersInit): Promise<unknown> {
    return this.#json("POST", `${sessionPath(sessionId)}/messages`, { text }, extra);
  }

  respond(sessionId: string, responses: InputResponse[], extra?: HeadersInit): Promise<unknown> {
    return this.#json("POST", `${sessionPath(sessionId)}/responses`, { responses }, extra);
  }

  /**
   * The session's events after `after`, in order, live, until `signal` aborts. A dropped
   * stream is reopened after the last event received.
   */
  async *events(
    sessionId: string,
    after: number,
    signal: AbortSignal,
    extra?: HeadersInit,
  ): AsyncGenerator<ProtocolEvent> {
    let lastSeq = after;
    for (let failures = 0; ; ) {
      signal.throwIfAborted();
      let response: Response;
      try {
        response = await this.#fetch(
          "GET",
          `${sessionPath(sessionId)}/events?after=${lastSeq}`,
          undefined,
          extra,
          signal,
          {
            accept: "text/event-stream",
          },
        );
      } catch (error) {
        signal.throwIfAborted();
        if (++failures > STREAM_RETRIES) throw error;
        await pause(failures, signal);
        continue;
      }
      if (!response.ok) throw await errorOf(response);
      if (!response.body) throw new Error("The hitl-kit event stream answered without a body.");
      let progressed = false;
      try {
        for await (const event of readEvents(response.body, sessionId)) {
          progressed = true;
          lastSeq = event.seq;
          yield event;
        }
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof ProtocolError) throw error;
      }
      if (progressed) failures = 0;
      if (++failures > STREAM_RETRIES) {
        throw new TypeError(`network error: the hitl-kit event stream of ${sessionId} keeps dropping.`);
      }
      await pause(failures, signal);
    }
  }

  async #json(method: string, path: string, body: unknown, extra: HeadersInit | undefined): Promise<unknown> {
    const response = await this.#fetch(method, path, body, extra);
    if (!response.ok) throw await errorOf(response);
    const text = await response.text();
    return text === "" ? undefined : JSON.parse(text);
  }

  async #fetch(
    method: string,
    path: string,
    body: unknown,
    extra: HeadersInit | undefined,
    signal?: AbortSignal,
    accept?: Record<string, string>,
  ): Promise<Response> {
    const headers = new Headers(accept);
    const configured = this.#options.headers;
    for (const source of [typeof configured === "function" ? await configured() : configured, extra]) {
      for (const [name, value] of new Headers(source)) headers.set(name, value);
    }
    if (body !== undefined) headers.set("content-type", "application/json");
    const fetch = this.#options.fetch ?? globalThis.fetch;
    return fetch(`${this.#base}${path}`, {
      method,
      headers,
      credentials: this.#options.credentials ?? "same-origin",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
  }
}

function sessionPath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}

/** Reads SSE frames into validated events; types from a newer server are skipped. */
async function* readEvents(body: ReadableStream<Uint8Array>, sessionId: string): AsyncGenerator<ProtocolEvent> {
  const decode = eventFrameDecoder(sessionId);
  const decoder = new TextDecoder();
  const ready: ProtocolEvent[] = [];
  const parser = createParser({
    onEvent(frame) {
      if (frame.event && !knownTypes.has(frame.event)) return;
      ready.push(decode(frame));
    },
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function errorOf(response: Response): Promise<ProtocolError> {
  const body = await response.json().catch(() => undefined);
  const parsed = parseErrorBody(body);
  if (parsed) return new ProtocolError(parsed.error.code, parsed.error.message, parsed.error.details);
  return new ProtocolError(
    response.status === 404 ? "not_found" : "http_error",
    `The hitl-kit server answered ${response.status} without an error body.`,
  );
}

function pause(failures: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, Math.min(2000, 100 * 2 ** failures));
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
