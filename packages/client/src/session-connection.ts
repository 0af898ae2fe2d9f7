import type { ClientAction } from "./client-action.js";
import { coalesceDeltas } from "./coalesce-deltas.js";
import { toCommandError } from "./command-result.js";
import type { Transport } from "./transport.js";

interface ConnectionHost {
  dispatch(...actions: ClientAction[]): void;
  /** The seq of the last event applied: where a (re)opened stream resumes. */
  lastSeq(): number;
}

/**
 * Starts and stops one session's snapshot and event stream for a client: hydrates once,
 * then keeps the stream open while someone listens. Stopping is deferred by a task, so a
 * listener that leaves and comes straight back (React StrictMode's unmount and remount)
 * keeps the same stream.
 */
export class SessionConnection {
  /** Resolves once the first snapshot is applied (or the session is new); rejects if loading it fails. */
  readonly ready: Promise<void>;
  /** Settles when the current start has hydrated or failed; never rejects. */
  started: Promise<void> = Promise.resolve();
  #resolveReady!: () => void;
  #rejectReady!: (error: unknown) => void;
  #hydrated = false;
  /** The snapshot load in flight, shared by the starts that wait for it. */
  #hydrating: Promise<void> | undefined;
  #running = false;
  /**
   * Counts starts and stops. An open that finishes after a stop (or a stop and a new start)
   * belongs to an older generation: it opens nothing, the newer start opens the stream.
   */
  #generation = 0;
  #closed = false;
  #closeStream: (() => void) | undefined;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly host: ConnectionHost,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => {}); // the failure is in the state; awaiting `ready` is optional
  }

  /** The session is new: there is no snapshot to load. */
  markReady(): void {
    this.#hydrated = true;
    this.#resolveReady();
  }

  /** Hydrates (once) and opens the stream, unless it is open, closed for good, or there is no session yet. */
  start(sessionId: string | undefined): void {
    clearTimeout(this.#stopTimer);
    if (this.#closed || this.#running || sessionId === undefined) return;
    this.#running = true;
    this.started = this.#open(sessionId, ++this.#generation);
  }

  /** Stops the stream after the current task, unless `start` is called before then. */
  stopSoon(): void {
    clearTimeout(this.#stopTimer);
    this.#stopTimer = setTimeout(() => this.#stop("idle"), 0);
  }

  /** Stops for good. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#stopTimer);
    this.#stop("closed");
  }

  async #open(sessionId: string, generation: number): Promise<void> {
    const { host } = this;
    try {
      if (!this.#hydrated) await this.#hydrate(sessionId);
    } catch (error) {
      // Stopped meanwhile and started again: the newer start waits for the same load and reports it.
      if (generation !== this.#generation && this.#running) return;
      this.#running = false;
      host.dispatch({ type: "connection.failed", error: toCommandError(error) });
      this.#rejectReady(error);
      return;
    }
    // Stopped while the snapshot loaded, and maybe started again: that newer start opens the stream.
    if (generation === this.#generation) this.#openStream(sessionId);
    // After the stream opened: whoever awaits `ready` can drive it at once (a replay's `step()`).
    this.markReady();
  }

  #openStream(sessionId: string): void {
    const { host } = this;
    let live = true;
    const close = this.transport.openStream(sessionId, {
      lastSeq: host.lastSeq,
      sink: {
        event: (event) => live && host.dispatch({ type: "event", event }),
        events: (events) =>
          live &&
          host.dispatch(...coalesceDeltas(events, host.lastSeq()).map((event) => ({ type: "event" as const, event }))),
        connection: (connection) => live && host.dispatch({ type: "connection.changed", connection }),
        fail: (error) => {
          if (!live) return;
          this.#running = false;
          const { code, message, details } = error;
          host.dispatch({
            type: "connection.failed",
            error: { code, message, ...(details === undefined ? {} : { details }) },
          });
        },
      },
    });
    this.#closeStream = () => {
      live = false;
      close();
    };
  }

  /** Loads and applies the snapshot; a start while a load is in flight waits for that one. */
  #hydrate(sessionId: string): Promise<void> {
    this.#hydrating ??= this.transport
      .loadSnapshot(sessionId)
      .then((snapshot) => {
        this.host.dispatch({ type: "snapshot.loaded", snapshot });
        this.#hydrated = true;
      })
      .finally(() => {
        this.#hydrating = undefined;
      });
    return this.#hydrating;
  }

  #stop(connection: "idle" | "closed"): void {
    this.#generation++;
    const wasRunning = this.#running;
    this.#running = false;
    this.#closeStream?.();
    this.#closeStream = undefined;
    if (wasRunning || connection === "closed") this.host.dispatch({ type: "connection.changed", connection });
  }
}
