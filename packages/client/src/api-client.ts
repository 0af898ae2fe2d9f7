import {
  type InputResponse,
  MAX_TAKEN_KEYS,
  ProtocolError,
  parseSnapshot,
  type TakenMessage,
  type TakenMessages,
} from "@hitl-kit/protocol";
import { ApiError, badResponseError, errorOfResponse, failedRequestError } from "./api-error.js";
import type {
  ApiClient,
  ApiClientOptions,
  CallOptions,
  FetchLike,
  HeaderValues,
  OpenStreamOptions,
  RespondReply,
  SessionPage,
  SessionSummary,
} from "./api-types.js";
import { sleep } from "./backoff.js";
import { eventIterator } from "./event-iterator.js";
import { openEventStream } from "./open-event-stream.js";
import { whileOffline } from "./page-signals.js";
import { outdatedClientError } from "./protocol-version.js";
import { idempotencyKey, retryDelay } from "./retry.js";

const neverAborted = new AbortController().signal;

/** A URL's query of the parameters that are set (`?limit=20`), in order; empty when none is. */
function queryOf(parameters: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.set(name, String(value));
  return query.size > 0 ? `?${query}` : "";
}

/**
 * Creates the HTTP client of the wire protocol. It does no I/O until a method is called.
 * @example
 * const api = createApiClient({ url: "/api/agent" });
 * const { sessionId } = await api.createSession();
 * await api.sendMessage(sessionId, "make me a poster");
 * for await (const event of api.events(sessionId, { signal })) {
 *   if (event.type === "input.requested") {
 *     const [request] = event.requests;
 *     await api.respond(sessionId, [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }]);
 *   }
 * }
 * @example
 * // In process, against a fetch handler (tests, scripts):
 * const api = createApiClient({ url: "http://local/api/agent", fetch: (url, init) => handler(new Request(url, init)) });
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  if (typeof options?.url !== "string" || options.url === "") {
    throw new Error("createApiClient() needs the url of the hitl-kit handler, such as { url: '/api/agent' }.");
  }
  const base = options.url.replace(/\/+$/, "");
  const fetch: FetchLike =
    options.fetch ??
    ((input, init) => {
      if (typeof globalThis.fetch !== "function") throw new NoFetch();
      return globalThis.fetch(input, init);
    });
  const credentials = options.credentials ?? "same-origin";
  const timeoutMs = options.timeoutMs ?? 30_000;
  const sessionPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;

  const headersFor = async (defaults: Record<string, string>, extra: HeaderValues | undefined) => {
    const headers = new Headers(defaults);
    const configured = typeof options.headers === "function" ? await options.headers() : options.headers;
    for (const source of [configured, extra])
      for (const [name, value] of headerEntries(source)) headers.set(name, value);
    return headers;
  };

  /**
   * Sends one request and reads its JSON answer; throws an `ApiError` for anything but a 2xx.
   * A request safe to send twice (`resend`) is sent again after a transient failure (see
   * {@link RetryOptions}), with the same headers and body.
   */
  const request = async (
    method: "GET" | "POST" | "DELETE",
    path: string,
    body: unknown,
    call: CallOptions = {},
    { resend = method === "GET", defaults = {} }: { resend?: boolean; defaults?: Record<string, string> } = {},
  ): Promise<{ status: number; body: unknown }> => {
    // Every POST is JSON, `{}` when it says nothing: the server refuses others, as a CSRF defence.
    const standard = {
      accept: "application/json",
      ...(method === "POST" ? { "content-type": "application/json" } : {}),
    };
    const retry = resend ? options.retry : false;
    const signal = call.signal ?? neverAborted;
    for (let attempt = 0; ; ) {
      try {
        // Read again for each attempt: a token may have been refreshed meanwhile.
        const headers = await headersFor({ ...standard, ...defaults }, call.headers);
        return await requestOnce(method, path, body, headers, call.signal);
      } catch (error) {
        // The browser says it is offline: wait for the network without spending a resend.
        const offline =
          retry !== false && error instanceof ApiError && error.code === "network" && whileOffline(signal);
        if (offline) {
          await offline;
          continue;
        }
        const wait = retry === false ? undefined : retryDelay(error, attempt, retry);
        if (wait === undefined) throw error;
        attempt += 1;
        await sleep(wait, signal);
      }
    }
  };

  const requestOnce = async (
    method: "GET" | "POST" | "DELETE",
    path: string,
    body: unknown,
    headers: Headers,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; body: unknown }> => {
    const url = `${base}${path}`;
    let response: Response;
    let text: string;
    // One attempt that gets no answer in time counts as lost (a connection that hangs), and may be resent.
    const attempt = new AbortController();
    const abort = () => attempt.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    const timer = setTimeout(() => attempt.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      signal?.throwIfAborted();
      response = await fetch(url, {
        method,
        headers,
        credentials,
        ...(method === "POST" ? { body: JSON.stringify(body ?? {}) } : {}),
        signal: attempt.signal,
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof NoFetch) throw error; // no answer will ever come back: not worth a retry
      throw failedRequestError(url, attempt.signal.aborted && !signal?.aborted ? attempt.signal.reason : error, signal);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    }
    const outdated = outdatedClientError(response);
    if (outdated) throw outdated;
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch (error) {
      if (response.ok) throw badResponseError(`answer to ${method} ${path}`, response.status, error);
    }
    if (!response.ok) throw errorOfResponse(response.status, json);
    return { status: response.status, body: json };
  };

  /** Checks a 2xx body's shape; a body that does not fit is `bad_response`. */
  const expect = <T>(
    what: string,
    answer: { status: number; body: unknown },
    fits: (body: Record<string, unknown>) => boolean,
  ): T => {
    if (answer.body !== null && typeof answer.body === "object" && fits(answer.body as Record<string, unknown>))
      return answer.body as T;
    throw badResponseError(what, answer.status, new Error(JSON.stringify(answer.body)?.slice(0, 200) ?? "no body"));
  };

  const respond = async (sessionId: string, responses: InputResponse[], call?: CallOptions): Promise<RespondReply> => {
    const answer = await request("POST", `${sessionPath(sessionId)}/responses`, { responses }, call, { resend: true });
    const { resolutions } = expect<{ resolutions: RespondReply["resolutions"] }>(
      "answer to POST /responses",
      answer,
      (body) => Array.isArray(body.resolutions),
    );
    return { status: answer.status === 200 ? 200 : 202, resolutions };
  };

  const connect =
    (sessionId: string, extra: HeaderValues | undefined) => async (lastSeq: number, signal: AbortSignal) =>
      fetch(`${base}${sessionPath(sessionId)}/events`, {
        headers: await headersFor({ accept: "text/event-stream", "last-event-id": String(lastSeq) }, extra),
        credentials,
        signal,
      });

  const openStream = (sessionId: string, streamOptions: OpenStreamOptions, extra?: HeaderValues) =>
    openEventStream(connect(sessionId, extra), {
      ...streamOptions,
      sessionId,
      ...(options.reconnect ? { backoff: options.reconnect } : {}),
      ...(options.streamSilenceMs === undefined ? {} : { silenceMs: options.streamSilenceMs }),
    });

  return {
    url: base,
    async createSession({ key = idempotencyKey(), ...call } = {}) {
      // The key makes a resent creation a repeat: the server answers the session it made.
      const answer = await request("POST", "/sessions", {}, call, {
        resend: true,
        defaults: { "idempotency-key": key },
      });
      const { sessionId } = expect<{ sessionId: string }>(
        "answer to POST /sessions",
        answer,
        (body) => typeof body.sessionId === "string",
      );
      return { sessionId };
    },
    async listSessions({ limit, cursor, ...call } = {}) {
      const answer = await request("GET", `/sessions${queryOf({ limit, cursor })}`, undefined, call);
      const page = expect<SessionPage>("session list", answer, (body) => Array.isArray(body.sessions));
      return {
        sessions: page.sessions as SessionSummary[],
        ...(typeof page.nextCursor === "string" ? { nextCursor: page.nextCursor } : {}),
      };
    },
    async getSnapshot(sessionId, { before, limit, ...call } = {}) {
      const answer = await request("GET", `${sessionPath(sessionId)}${queryOf({ before, limit })}`, undefined, call);
      try {
        return parseSnapshot(answer.body);
      } catch (error) {
        if (error instanceof ProtocolError) throw badResponseError("snapshot", answer.status, error);
        throw error;
      }
    },
    async findTakenMessages(sessionId, keys, call) {
      const taken: TakenMessage[] = [];
      const asked = [...new Set(keys)];
      for (let from = 0; from < asked.length; from += MAX_TAKEN_KEYS) {
        const query = new URLSearchParams(asked.slice(from, from + MAX_TAKEN_KEYS).map((key) => ["key", key]));
        const answer = await request("GET", `${sessionPath(sessionId)}/messages?${query}`, undefined, call);
        const body = expect<TakenMessages>(
          "answer to GET /messages",
          answer,
          (fields) =>
            Array.isArray(fields.taken) &&
            fields.taken.every(
              (message: unknown) =>
                typeof (message as TakenMessage | null)?.key === "string" &&
                typeof (message as TakenMessage).turnId === "string",
            ),
        );
        taken.push(...body.taken.map(({ key, turnId }) => ({ key, turnId })));
      }
      return taken;
    },
    async sendMessage(sessionId, text, { key = idempotencyKey(), ...call } = {}) {
      // The key makes a resent message a repeat: the server starts one turn however often it arrives.
      const answer = await request("POST", `${sessionPath(sessionId)}/messages`, { text }, call, {
        resend: true,
        defaults: { "idempotency-key": key },
      });
      const { turnId } = expect<{ turnId: string }>(
        "answer to POST /messages",
        answer,
        (body) => typeof body.turnId === "string",
      );
      return { turnId, repeated: answer.status === 200 };
    },
    respond,
    cancelRequest: (sessionId, requestId, call) => respond(sessionId, [{ requestId, action: "cancel" }], call),
    async cancelTurn(sessionId, { turnId, ...call } = {}) {
      const body = turnId === undefined ? {} : { turnId };
      await request("POST", `${sessionPath(sessionId)}/cancel`, body, call, { resend: true });
    },
    async deleteSession(sessionId, call) {
      await request("DELETE", sessionPath(sessionId), undefined, call);
    },
    events(sessionId, { after = 0, signal, maxRetries, headers } = {}) {
      return eventIterator(
        (sink, lastSeq) =>
          openStream(sessionId, { sink, lastSeq, ...(maxRetries === undefined ? {} : { maxRetries }) }, headers),
        after,
        signal,
      );
    },
    openStream: (sessionId, streamOptions) => openStream(sessionId, streamOptions),
  };
}

/** The entries of headers given in options; a value HTTP cannot carry is a `TypeError` that names its header. */
function headerEntries(init: HeaderValues | undefined): Headers {
  try {
    return new Headers(init);
  } catch (cause) {
    const entries =
      init === undefined || init instanceof Headers ? [] : Array.isArray(init) ? init : Object.entries(init);
    const bad = entries.find(([, value]) => /[\u0100-\uffff]/.test(String(value)));
    if (!bad) throw cause;
    throw new TypeError(
      `The header ${JSON.stringify(bad[0])} has a value HTTP cannot carry (${JSON.stringify(bad[1])}): header values are Latin-1 text; encode others first (encodeURIComponent, say).`,
      { cause },
    );
  }
}

/** What a request fails with where there is no `fetch` to send it (Jest's jsdom environment has none). */
class NoFetch extends Error {
  constructor() {
    super("This environment has no fetch (Jest's jsdom environment has none): pass one to the client as { fetch }.");
  }
}
