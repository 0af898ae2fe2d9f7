import { type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
import type { ClientAction } from "./client-action.js";
import { type CommandError, toCommandError } from "./command-result.js";
import { isTransientFailure } from "./retry.js";
import type { Transport } from "./transport.js";

/** What one start of a connection wants told while its snapshot loads. */
export interface SnapshotAttempt {
  /** Whether a stop (or a newer start) replaced this start: it then stops trying. */
  stale(): boolean;
  /** A load failed on the way; the next one goes after a backoff. */
  retrying(error: CommandError): void;
  /** A load failed in a way trying again cannot fix. */
  failed(error: unknown): void;
}

/**
 * Loads a session's snapshot once, for a {@link SessionConnection}: starts share the one
 * load in flight, and a load that fails on the way (no answer, 5xx, 429) is tried again
 * after a backoff for as long as the start that asked is current.
 */
export class SnapshotLoader {
  /** Resolves once the first snapshot is applied (or the session is new); rejects if loading it fails for good. */
  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #rejectReady!: (error: unknown) => void;
  #hydrated = false;
  /** The load in flight, shared by the starts that wait for it. */
  #loading: Promise<void> | undefined;
  /** Ends the wait before the next load (a stop, or an explicit action that wants it now). */
  #backoffWait: AbortController | undefined;
  /** Aborts every load once the connection is closed. */
  readonly #closed = new AbortController();

  constructor(
    private readonly transport: Transport,
    private readonly dispatch: (action: ClientAction) => void,
    private readonly backoff: BackoffOptions | undefined,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => {}); // the failure is in the state; awaiting `ready` is optional
  }

  /** Whether the snapshot is applied (or the session is new). */
  get hydrated(): boolean {
    return this.#hydrated;
  }

  /** Settles when the load in flight has succeeded or failed, at once when none is; never rejects. */
  get settled(): Promise<void> {
    return this.#loading?.then(ignore, ignore) ?? Promise.resolve();
  }

  /** The session is new, or its snapshot is applied and its stream open: `ready` resolves. */
  markReady(): void {
    this.#hydrated = true;
    this.#resolveReady();
  }

  /** `ready` rejects with this (nothing, once it resolved). */
  reject(error: unknown): void {
    this.#rejectReady(error);
  }

  /**
   * Loads until the snapshot is applied; resolves `true` then, `false` when the attempt
   * failed for good or went stale. Never rejects.
   */
  async hydrate(sessionId: string, attempt: SnapshotAttempt): Promise<boolean> {
    for (let tries = 0; !this.#hydrated; tries++) {
      try {
        await this.#load(sessionId);
      } catch (error) {
        if (!isTransientFailure(error)) {
          attempt.failed(error);
          return false;
        }
        if (attempt.stale()) return false; // nobody listens, or a newer start tries again
        attempt.retrying(toCommandError(error));
        const wait = new AbortController();
        this.#backoffWait = wait;
        await sleep(backoffDelay(tries, this.backoff), wait.signal);
        if (this.#backoffWait === wait) this.#backoffWait = undefined;
        if (attempt.stale()) return false;
      }
    }
    return true;
  }

  /** A load waiting out its backoff goes now; returns whether one was waiting. */
  loadNow(sessionId: string): boolean {
    if (!this.#backoffWait) return false;
    this.#load(sessionId).catch(ignore); // started now, so a command awaiting `settled` waits for it
    this.#backoffWait.abort();
    return true;
  }

  /** Ends a backoff wait under way (the attempt then finds itself stale). */
  stopWaiting(): void {
    this.#backoffWait?.abort();
  }

  /** The connection is closed for good: the load in flight is aborted, and `ready`, if it has not resolved, rejects with `error`. */
  close(error: unknown): void {
    this.#closed.abort(error);
    this.stopWaiting();
    this.#rejectReady(error);
  }

  /** Loads and applies the snapshot; a start while a load is in flight waits for that one. */
  #load(sessionId: string): Promise<void> {
    this.#loading ??= this.transport
      .loadSnapshot(sessionId, { signal: this.#closed.signal })
      .then((snapshot) => {
        this.dispatch({ type: "snapshot.loaded", snapshot });
        this.#hydrated = true;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}

const ignore = () => {};
