import { type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
import type { ClientAction } from "./client-action.js";
import type { ConnectionState } from "./client-state.js";
import { coalesceDeltas } from "./coalesce-deltas.js";
import { toCommandError } from "./command-result.js";
import { watchPage } from "./page-signals.js";
import { isTransientFailure } from "./retry.js";
import type { Transport } from "./transport.js";

/** How a {@link SessionConnection} waits and when it finds its stream stale. */
export interface ConnectionOptions {
  /** The waits between snapshot loads that fail on the way (those of the stream's reconnects). */
  backoff?: BackoffOptions;
  /**
   * The server's heartbeat interval (default 15 000 ms): a stream silent for longer when the
   * page wakes up or comes back online missed something, and is reopened at once.
   */
  heartbeatMs?: number;
}

interface ConnectionHost {
  dispatch(...actions: ClientAction[]): void;
  /** The seq of the last event applied: where a (re)opened stream resumes. */
  lastSeq(): number;
}

/**
 * Starts and stops one session's snapshot and event stream for a client: hydrates once,
 * then keeps the stream open while someone listens. Stopping is deferred by a task, so a
 * listener that leaves and comes straight back (React StrictMode's unmount and remount)
 * keeps the same stream. A snapshot that cannot be loaded now (no answer, 5xx, 429) is
 * tried again after a backoff for as long as someone listens, as the stream reconnects.
 */
export class SessionConnection {
  /** Resolves once the first snapshot is applied (or the session is new); rejects if loading it fails for good. */
  readonly ready: Promise<void>;
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
  #sessionId: string | undefined;
  #closeStream: (() => void) | undefined;
  /** The open stream's last reported state. */
  #streamState: ConnectionState = "idle";
  /** When the stream last showed it was alive (an event, a heartbeat, a change of state), by the wall clock, which runs on while the computer sleeps. */
  #lastHeard = 0;
  /** The browser said the network is gone, and nothing has come through since: the connection shows `offline`. */
  #networkDown = false;
  /** Stops listening to the page's online, offline and visibility events. */
  #unwatch: (() => void) | undefined;
  /** Ends the wait before the next snapshot load (a stop, or an explicit action that wants it now). */
  #backoffWait: AbortController | undefined;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly host: ConnectionHost,
    private readonly options: ConnectionOptions = {},
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
    this.#sessionId = sessionId;
    this.#unwatch = watchPage({
      online: () => {
        this.#networkDown = false;
        this.#woke();
      },
      offline: () => {
        this.#networkDown = true;
        this.host.dispatch({ type: "connection.changed", connection: "offline" });
      },
      shown: () => this.#woke(),
    });
    void this.#open(sessionId, ++this.#generation);
  }

  /** Settles when the snapshot load in flight has succeeded or failed, at once when none is; never rejects. */
  get started(): Promise<void> {
    return this.#hydrating?.then(ignore, ignore) ?? Promise.resolve();
  }

  /**
   * The person did something (sent a message, answered) while the connection is down: the
   * snapshot load waiting out its backoff goes now, and a stream waiting to reconnect
   * reconnects now. A connection stopped for good (`404`, …) stays stopped.
   */
  retryNow(): void {
    if (!this.#running) return;
    if (this.#backoffWait) {
      this.#hydrate(this.#sessionId!).catch(ignore); // started now, so a command awaiting `started` waits for it
      this.#backoffWait.abort();
    } else if (this.#hydrated && this.#streamState === "reconnecting") this.reconnect();
  }

  /** Closes the stream and opens it again at once, resuming after the last event applied. */
  reconnect(): void {
    if (!this.#running || !this.#hydrated) return; // not open yet: the start under way opens it
    this.#closeStream?.();
    this.#generation++; // an open still under way opens nothing
    this.#openStream(this.#sessionId!);
  }

  /**
   * The page is back (online, shown again): a stream silent for longer than a heartbeat
   * missed events while the computer slept or the network was gone, so it reconnects at
   * once instead of showing an old state as `open` until its silence timeout.
   */
  #woke(): void {
    if (!this.#hydrated) this.retryNow();
    else if (Date.now() - this.#lastHeard > (this.options.heartbeatMs ?? 15_000)) this.reconnect();
    else this.#showStream();
  }

  /** The connection as the stream reports it: `offline` while the browser says so and the stream is not through. */
  #showStream(state = this.#streamState): void {
    if (state === "open") this.#networkDown = false;
    const shown = this.#networkDown && (state === "connecting" || state === "reconnecting") ? "offline" : state;
    this.host.dispatch({ type: "connection.changed", connection: shown });
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
    for (let attempt = 0; !this.#hydrated; attempt++) {
      try {
        await this.#hydrate(sessionId);
      } catch (error) {
        const stale = generation !== this.#generation;
        if (!isTransientFailure(error)) {
          // Stopped meanwhile and started again: the newer start waits for the same load and reports it.
          if (!stale || !this.#running) this.#fail(toCommandError(error), error);
          return;
        }
        if (stale) return; // nobody listens, or a newer start tries again
        this.host.dispatch({ type: "connection.retrying", error: toCommandError(error) });
        const wait = new AbortController();
        this.#backoffWait = wait;
        await sleep(backoffDelay(attempt, this.options.backoff), wait.signal);
        if (this.#backoffWait === wait) this.#backoffWait = undefined;
        if (generation !== this.#generation) return;
      }
    }
    // Stopped while the snapshot loaded, and maybe started again: that newer start opens the stream.
    if (generation === this.#generation) this.#openStream(sessionId);
    // After the stream opened: whoever awaits `ready` can drive it at once (a replay's `step()`).
    this.markReady();
  }

  /** Stops, saying why: an answer retrying cannot fix. */
  #fail(error: { code: string; message: string; details?: unknown }, thrown: unknown = error): void {
    this.#running = false;
    const { code, message, details } = error;
    this.host.dispatch({
      type: "connection.failed",
      error: { code, message, ...(details === undefined ? {} : { details }) },
    });
    this.#rejectReady(thrown);
  }

  #openStream(sessionId: string): void {
    const { host } = this;
    let live = true;
    const heard = () => {
      this.#lastHeard = Date.now();
      if (this.#networkDown) this.#showStream("open"); // something came through: the stream is not down
    };
    const close = this.transport.openStream(sessionId, {
      lastSeq: host.lastSeq,
      sink: {
        event: (event) => {
          if (!live) return;
          heard();
          host.dispatch({ type: "event", event });
        },
        events: (events) => {
          if (!live) return;
          heard();
          host.dispatch(...coalesceDeltas(events, host.lastSeq()).map((event) => ({ type: "event" as const, event })));
        },
        connection: (connection) => {
          if (!live) return;
          this.#lastHeard = Date.now();
          this.#streamState = connection;
          this.#showStream(connection);
        },
        heard: () => live && heard(),
        fail: (error) => live && this.#fail(error),
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
    this.#backoffWait?.abort();
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#closeStream?.();
    this.#closeStream = undefined;
    this.#streamState = "idle";
    this.#networkDown = false;
    if (wasRunning || connection === "closed") this.host.dispatch({ type: "connection.changed", connection });
  }
}

const ignore = () => {};
