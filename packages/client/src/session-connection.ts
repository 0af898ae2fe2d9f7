import { ApiError } from "./api-error.js";
import type { BackoffOptions } from "./backoff.js";
import type { ClientAction } from "./client-action.js";
import { toCommandError } from "./command-result.js";
import { LiveStream } from "./live-stream.js";
import { watchPage } from "./page-signals.js";
import { SnapshotLoader } from "./snapshot-loader.js";
import type { Transport } from "./transport.js";

/** How a {@link SessionConnection} waits, when it finds its stream stale, and when a hidden page gives it back. */
export interface ConnectionOptions {
  /** The waits between snapshot loads that fail on the way (those of the stream's reconnects). */
  backoff?: BackoffOptions;
  /**
   * The server's heartbeat interval (default 15 000 ms): a stream silent for longer when the
   * page wakes up or comes back online missed something, and is reopened at once.
   */
  heartbeatMs?: number;
  /**
   * How long the page may stay hidden before its stream is given back (default 60 000 ms);
   * `false` keeps it open. It reopens when the page is shown again, or at once when the person acts.
   */
  hiddenStreamMs?: number | false;
}

interface ConnectionHost {
  dispatch(...actions: ClientAction[]): void;
  /** The seq of the last event applied: where a (re)opened stream resumes. */
  lastSeq(): number;
}

/**
 * Starts and stops one session's snapshot and event stream for a client: hydrates once
 * ({@link SnapshotLoader}), then keeps the stream ({@link LiveStream}) open while someone
 * listens, reopens it when the page wakes up with a stream gone quiet, and gives it back
 * while the page stays hidden (browsers allow six HTTP/1.1 connections per host). Stopping is
 * deferred by a task, so a listener that leaves and comes straight back (React StrictMode's
 * unmount and remount) keeps the same stream.
 */
export class SessionConnection {
  /** Resolves once the first snapshot is applied (or the session is new); rejects if loading it fails for good. */
  readonly ready: Promise<void>;
  readonly #snapshot: SnapshotLoader;
  readonly #stream: LiveStream;
  #running = false;
  /**
   * Counts starts and stops. An open that finishes after a stop (or a stop and a new start)
   * belongs to an older generation: it opens nothing, the newer start opens the stream.
   */
  #generation = 0;
  #closed = false;
  /** Stopped by an answer retrying cannot fix (see `retryNow`). */
  #failed = false;
  #sessionId: string | undefined;
  /** Stops listening to the page's online, offline and visibility events. */
  #unwatch: (() => void) | undefined;
  /** The page is hidden: the stream is given back when `#pauseTimer` fires. */
  #pageHidden = false;
  #pauseTimer: ReturnType<typeof setTimeout> | undefined;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;
  /** The checks that accepted writes showed on the stream (see `expectEvents`). */
  readonly #checks = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    transport: Transport,
    private readonly host: ConnectionHost,
    private readonly options: ConnectionOptions = {},
  ) {
    this.#snapshot = new SnapshotLoader(transport, (action) => host.dispatch(action), options.backoff);
    this.#stream = new LiveStream(transport, { ...host, fail: (error) => this.#fail(error) });
    this.ready = this.#snapshot.ready;
  }

  /** The session is new: there is no snapshot to load. */
  markReady(): void {
    this.#snapshot.markReady();
  }

  /** Hydrates (once) and opens the stream, unless it is open, closed for good, or there is no session yet. */
  start(sessionId: string | undefined): void {
    clearTimeout(this.#stopTimer);
    if (this.#closed || this.#running || sessionId === undefined) return;
    this.#running = true;
    this.#failed = false;
    this.#sessionId = sessionId;
    this.#unwatch = watchPage({
      online: () => {
        this.#stream.online();
        this.#woke();
      },
      offline: () => this.#stream.offline(),
      shown: () => this.#shown(),
      hidden: () => {
        this.#pageHidden = true;
        this.#pauseLater();
      },
    });
    void this.#open(sessionId, ++this.#generation);
  }

  /** Settles when the snapshot load in flight has succeeded or failed, at once when none is; never rejects. */
  get started(): Promise<void> {
    return this.#snapshot.settled;
  }

  /**
   * The person did something (sent a message, answered) while the connection is down: the
   * snapshot load waiting out its backoff goes now, and a stream waiting to reconnect, or
   * given back by a hidden page, reconnects now. A stream stopped by a refusal (a `401`
   * before the page refreshed its token, say) opens again, once per act: the refusal may be
   * over, and the act's events come on the stream.
   */
  retryNow(): void {
    if (this.#failed && this.#snapshot.hydrated) {
      this.start(this.#sessionId);
      return;
    }
    if (!this.#running || this.#snapshot.loadNow(this.#sessionId!)) return;
    const { state } = this.#stream;
    if (this.#snapshot.hydrated && (state === "reconnecting" || state === "paused")) this.reconnect();
  }

  /** Closes the stream and opens it again at once, resuming after the last event applied. */
  reconnect(): void {
    if (!this.#running || !this.#snapshot.hydrated) return; // not open yet: the start under way opens it
    this.#generation++; // an open still under way opens nothing
    this.#stream.open(this.#sessionId!);
    if (this.#pageHidden) this.#pauseLater(); // reopened while hidden (the person acted): given back again later
  }

  /**
   * The server accepted a write sent at `sentAt` (a message, an answer, a cancel), so its
   * events are on their way: an open stream that shows nothing — no event, no heartbeat —
   * within a few seconds of it is reopened, resuming after the last event applied. A stream
   * can look open and be dead: a proxy that keeps the page's connection after the server
   * behind it went away (Vite's dev proxy does), or one a NAT dropped without a word. Without
   * this check the person would see their answer "sending" until the silence timeout.
   */
  expectEvents(sentAt: number): void {
    // A live stream shows a write's events at once, and is never silent longer than a heartbeat.
    const within = Math.min(3_000, this.options.heartbeatMs ?? 15_000);
    const check = setTimeout(
      () => {
        this.#checks.delete(check);
        // Not reconnecting or given back meanwhile, and silent since the write was sent.
        const silent = this.#stream.state === "open" && this.#stream.silentFor() >= Date.now() - sentAt;
        if (silent) this.reconnect();
      },
      sentAt + within - Date.now(),
    );
    this.#checks.add(check);
  }

  /** The page is visible again: a stream it gave back reopens; one it kept is checked as on waking up. */
  #shown(): void {
    this.#pageHidden = false;
    clearTimeout(this.#pauseTimer);
    this.#pauseTimer = undefined;
    if (this.#stream.state === "paused") this.reconnect();
    else this.#woke();
  }

  /**
   * Gives the stream back once the page has stayed hidden for `hiddenStreamMs`, so that a
   * hidden tab does not hold one of the six connections a browser allows per host over
   * HTTP/1.1 (the person's other tabs need them to load and send).
   */
  #pauseLater(): void {
    const after = this.options.hiddenStreamMs ?? 60_000;
    if (after === false || this.#pauseTimer !== undefined) return;
    this.#pauseTimer = setTimeout(() => {
      this.#pauseTimer = undefined;
      if (!this.#running || !this.#pageHidden) return;
      if (this.#snapshot.hydrated) this.#stream.pause();
      else this.#pauseLater(); // the snapshot is still loading: its stream is given back once it has opened
    }, after);
  }

  /**
   * The page is back (online, shown again): a stream silent for longer than a heartbeat
   * missed events while the computer slept or the network was gone, so it reconnects at
   * once instead of showing an old state as `open` until its silence timeout.
   */
  #woke(): void {
    if (!this.#snapshot.hydrated) this.retryNow();
    else if (this.#stream.state === "paused")
      this.#stream.show(); // back online while hidden: still given back
    else if (this.#stream.silentFor() > (this.options.heartbeatMs ?? 15_000)) this.reconnect();
    else this.#stream.show();
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
    this.#snapshot.close(
      new ApiError("aborted", "The client was closed before the session's history loaded.", { status: 0 }),
    );
  }

  async #open(sessionId: string, generation: number): Promise<void> {
    const stale = () => generation !== this.#generation;
    const hydrated = await this.#snapshot.hydrate(sessionId, {
      stale,
      retrying: (error) => this.host.dispatch({ type: "connection.retrying", error }),
      failed: (error) => {
        // Stopped meanwhile and started again: the newer start waits for the same load and reports it.
        if (!this.#closed && (!stale() || !this.#running)) this.#fail(toCommandError(error), error);
      },
    });
    if (!hydrated) return;
    // Stopped while the snapshot loaded, and maybe started again: that newer start opens the stream.
    if (!stale()) this.#stream.open(sessionId);
    // After the stream opened: whoever awaits `ready` can drive it at once (a replay's `step()`).
    this.#snapshot.markReady();
  }

  /** Stops, saying why: an answer retrying cannot fix. */
  #fail(error: { code: string; message: string; details?: unknown }, thrown: unknown = error): void {
    this.#running = false;
    this.#failed = true;
    // Waking up or coming back online does not end a refusal: only the person's next act tries again.
    this.#unwatch?.();
    this.#unwatch = undefined;
    const { code, message, details } = error;
    this.host.dispatch({
      type: "connection.failed",
      error: { code, message, ...(details === undefined ? {} : { details }) },
    });
    this.#snapshot.reject(thrown);
  }

  #stop(connection: "idle" | "closed"): void {
    this.#generation++;
    const wasRunning = this.#running;
    this.#running = false;
    this.#snapshot.stopWaiting();
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#pageHidden = false;
    clearTimeout(this.#pauseTimer);
    this.#pauseTimer = undefined;
    for (const check of this.#checks) clearTimeout(check);
    this.#checks.clear();
    this.#stream.close();
    if (wasRunning || connection === "closed") this.host.dispatch({ type: "connection.changed", connection });
  }
}
