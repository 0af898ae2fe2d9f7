import type { ResolutionAction, SessionStatus } from "@hitl-kit/protocol";
import type { BackoffOptions } from "./backoff.js";

/** A `fetch`-compatible function. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** The protocol's base, such as `/api/agent` or `http://127.0.0.1:3000/api/agent`. */
  url: string;
  /** The `fetch` to use (default: the global one): to add auth, to test a flaky network, or a fetch handler called in process. */
  fetch?: FetchLike;
  /** Headers sent with every request, or a function read before each one (for a token that refreshes). */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /** The `credentials` of every request (default `same-origin`, so the identity cookie goes along). */
  credentials?: RequestCredentials;
  /** How event streams wait before reconnecting. */
  reconnect?: BackoffOptions;
}

/** Per-call options of the {@link ApiClient}'s methods. */
export interface CallOptions {
  /** Aborts the request; it then rejects with an `ApiError` of code `aborted`. */
  signal?: AbortSignal;
  /** Headers for this request only, over the client's. */
  headers?: HeadersInit;
}

/** One session in the list `GET /sessions` answers. */
export interface SessionSummary {
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  /** The first words of the first message. */
  title?: string;
  /** Where its turn is; `resuming` while the server picks a settled turn up again. */
  status: SessionStatus | "resuming";
  lastSeq: number;
}

/** A page of the caller's sessions, newest first. */
export interface SessionPage {
  sessions: SessionSummary[];
  /** Pass it as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** How a request was settled, as `POST /sessions/:id/responses` answers it. */
export interface Resolution {
  requestId: string;
  action: ResolutionAction;
  value?: unknown;
  reason?: string;
}

/** The answer to `respond`: `202` when any request settled now, `200` when every response repeated a settled one. */
export interface RespondReply {
  status: 200 | 202;
  /** Each request's resolution, in the order of the responses (a repeat gets the first resolution). */
  resolutions: Resolution[];
}
