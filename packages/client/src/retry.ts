import { ProtocolError } from "@hitl-kit/protocol";
import { ApiError } from "./api-error.js";
import { type BackoffOptions, backoffDelay } from "./backoff.js";

/**
 * How the {@link ApiClient} resends a request that failed on the way: no answer came back
 * (`network`), or the server or a proxy in front of it could not take it now (`503
 * unavailable` — a deploy, a database restart —, `502`, `504`, `408`, or `429` with a short
 * `Retry-After`). Only requests that are safe to send twice are resent: reads, answers,
 * `cancelTurn`, and messages (each sent with an `Idempotency-Key`, so the server starts one
 * turn however many times it arrives). While the browser says it is offline, a request
 * that got no answer waits for the network instead, without spending a resend.
 */
export interface RetryOptions extends BackoffOptions {
  /** How many times one request is resent before its error is thrown (default 6: about 13 s at most with the default waits). */
  maxRetries?: number;
}

const transientStatuses = new Set([408, 502, 503, 504]);

/** Statuses worth trying again later: the server or a proxy is busy, restarting or rate limiting. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/**
 * Whether trying again later can fix a failure: no answer came back (`network`), or the
 * server or a proxy could not take it now (`408`, `429`, `5xx`). A refusal (`401`, `403`,
 * `404`, …) and an answer that is not the protocol's (`bad_response` on a `2xx`: a server
 * of another protocol version) cannot, nor can anything that is not a `ProtocolError`.
 */
export function isTransientFailure(error: unknown): boolean {
  return error instanceof ProtocolError && (error.code === "network" || isRetryableStatus(error.status));
}

/**
 * The wait before resending a request whose attempt number `attempt` (from 0) failed with
 * `error`, or `undefined` when it must not be resent: a failure resending cannot fix, an
 * abort, or the last attempt.
 */
export function retryDelay(error: unknown, attempt: number, options: RetryOptions = {}): number | undefined {
  const { maxRetries = 6, maxDelayMs = 5_000 } = options;
  if (!(error instanceof ApiError) || attempt >= maxRetries) return undefined;
  const backoff = backoffDelay(attempt, options);
  if (error.code === "network" || transientStatuses.has(error.status)) return backoff;
  if (error.status !== 429) return undefined;
  const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  const wait = typeof seconds === "number" ? Math.max(seconds * 1_000, backoff) : backoff;
  return wait <= maxDelayMs ? wait : undefined;
}

/** A fresh `Idempotency-Key`: 128 random bits as 22 base64url characters (`getRandomValues` works outside secure contexts too). */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
