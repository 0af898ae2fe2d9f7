import { type ApiClient, ApiError, createApiClient, type RetryOptions } from "@hitl-kit/client";
import type { InputResponse, ProtocolEvent, SessionSnapshot } from "@hitl-kit/protocol";

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
  /**
   * How a message, an answer or a read that fails on the way (no answer, `503`, …) is sent
   * again: `@hitl-kit/client`'s `retry` (default up to 6 times with backoff; `false` sends
   * each once).
   */
  retry?: RetryOptions | false;
  /**
   * How long a reply's event stream may show nothing, not even a heartbeat, before it counts
   * as dropped and is reopened (`@hitl-kit/client`'s `streamSilenceMs`, default 45 000 ms).
   */
  streamSilenceMs?: number;
}

/** How often a dropped event stream is reopened in a row, without an event, before the chat is told. */
const STREAM_RETRIES = 5;

/**
 * What one transport needs of `@hitl-kit/client`'s `ApiClient`: sessions by id, snapshots
 * (a missing session is `undefined`), commands, and the event stream; the chat's own
 * headers ride along on each call.
 */
export class SessionHttp {
  readonly #api: ApiClient;

  constructor(options: SessionHttpOptions) {
    if (typeof options.url !== "string" || options.url === "") {
      throw new Error("hitlChatTransport() needs the url of the hitl-kit handler, such as { url: '/api/agent' }.");
    }
    this.#api = createApiClient(options);
  }

  /** Creates a session under `key` (its `Idempotency-Key`: created again, it is the same session) and answers its id. */
  async createSession(key: string | undefined, headers?: HeadersInit): Promise<string> {
    return (await this.#api.createSession({ ...call(headers), ...(key === undefined ? {} : { key }) })).sessionId;
  }

  /** The session's snapshot, or `undefined` when the caller has no such session (404). */
  async snapshot(sessionId: string, headers?: HeadersInit): Promise<SessionSnapshot | undefined> {
    try {
      return await this.#api.getSnapshot(sessionId, call(headers));
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") return undefined;
      throw error;
    }
  }

  /**
   * The snapshot with every earlier page of its session's messages before its own (and
   * their settled requests): the whole conversation, read a request per 200 messages.
   */
  async wholeHistory(snapshot: SessionSnapshot, headers?: HeadersInit): Promise<SessionSnapshot> {
    let { before, ...whole } = snapshot;
    while (before !== undefined) {
      const page = await this.#api.getSnapshot(snapshot.sessionId, { ...call(headers), before, limit: 200 });
      whole = {
        ...whole,
        messages: [...page.messages, ...whole.messages],
        resolved: [...page.resolved, ...whole.resolved],
      };
      before = page.before;
    }
    return whole;
  }

  /** Whether the session's turn runs now (one message of its history read, not the whole page). */
  async turnRunning(sessionId: string, headers?: HeadersInit): Promise<boolean> {
    const { status } = await this.#api.getSnapshot(sessionId, { ...call(headers), limit: 1 });
    return status === "running";
  }

  /** Sends a message with `key` as its `Idempotency-Key`, so sending it again starts no second turn; answers its turn. */
  async sendMessage(sessionId: string, text: string, key: string | undefined, headers?: HeadersInit): Promise<string> {
    const sent = await this.#api.sendMessage(sessionId, text, {
      ...call(headers),
      ...(key === undefined ? {} : { key }),
    });
    return sent.turnId;
  }

  /** Stops the session's turn `turnId` (without one, its current turn); a later turn is left alone. */
  cancelTurn(sessionId: string, turnId: string | undefined, headers?: HeadersInit): Promise<void> {
    return this.#api.cancelTurn(sessionId, { ...call(headers), ...(turnId === undefined ? {} : { turnId }) });
  }

  respond(sessionId: string, responses: InputResponse[], headers?: HeadersInit): Promise<unknown> {
    return this.#api.respond(sessionId, responses, call(headers));
  }

  /**
   * The session's events after `after`, in order, live, until `signal` aborts (then it
   * throws the abort's reason). A dropped stream is reopened after the last event received.
   */
  async *events(
    sessionId: string,
    after: number,
    signal: AbortSignal,
    headers?: HeadersInit,
  ): AsyncGenerator<ProtocolEvent> {
    yield* this.#api.events(sessionId, { after, signal, maxRetries: STREAM_RETRIES, ...call(headers) });
    signal.throwIfAborted();
  }
}

function call(headers: HeadersInit | undefined): { headers?: HeadersInit } {
  return headers === undefined ? {} : { headers };
}
