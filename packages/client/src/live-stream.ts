import type { ClientAction } from "./client-action.js";
import type { ConnectionState } from "./client-state.js";
import { coalesceDeltas } from "./coalesce-deltas.js";
import type { EventSink, Transport } from "./transport.js";

interface StreamHost {
  dispatch(...actions: ClientAction[]): void;
  /** The seq of the last event applied: where a (re)opened stream resumes. */
  lastSeq(): number;
  /** The stream cannot go on (an answer retrying cannot fix). */
  fail: EventSink["fail"];
}

/**
 * One session's event stream for a {@link SessionConnection}: opens the transport's
 * stream, applies what it delivers, remembers when it last heard from the server, and
 * shows its state as the connection (`offline` while the browser says so and nothing
 * comes through).
 */
export class LiveStream {
  #close: (() => void) | undefined;
  /** The open stream's last reported state. */
  #state: ConnectionState = "idle";
  /** When the stream last showed it was alive (an event, a heartbeat, a change of state), by the wall clock, which runs on while the computer sleeps. */
  #lastHeard = 0;
  /** The browser said the network is gone, and nothing has come through since: the connection shows `offline`. */
  #networkDown = false;

  constructor(
    private readonly transport: Transport,
    private readonly host: StreamHost,
  ) {}

  /** The open stream's last reported state (`idle` when none is open). */
  get state(): ConnectionState {
    return this.#state;
  }

  /** How long since the stream last showed it was alive, in ms. */
  silentFor(): number {
    return Date.now() - this.#lastHeard;
  }

  /** Opens the stream, resuming after the last event applied; one already open is closed first. */
  open(sessionId: string): void {
    this.#close?.();
    const { host } = this;
    let live = true;
    const heard = () => {
      this.#lastHeard = Date.now();
      if (this.#networkDown) this.show("open"); // something came through: the stream is not down
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
          this.#state = connection;
          this.show(connection);
        },
        heard: () => live && heard(),
        fail: (error) => live && host.fail(error),
      },
    });
    this.#close = () => {
      live = false;
      close();
    };
  }

  /** Closes the stream, if one is open; nothing it delivers afterwards is applied. */
  close(): void {
    this.#close?.();
    this.#close = undefined;
    this.#state = "idle";
    this.#networkDown = false;
  }

  /**
   * Gives the stream back (the page is hidden): closed, and shown as `paused` until
   * `open` is called again.
   */
  pause(): void {
    this.#close?.();
    this.#close = undefined;
    this.#state = "paused";
    this.show();
  }

  /**
   * The browser says the network is gone: the connection shows `offline` until it is back or
   * something comes through (a paused stream stays `paused`, and shows `offline` once reopened).
   */
  offline(): void {
    this.#networkDown = true;
    if (this.#state !== "paused") this.host.dispatch({ type: "connection.changed", connection: "offline" });
  }

  /** The browser says the network is back. */
  online(): void {
    this.#networkDown = false;
  }

  /** Shows the connection as the stream reports it: `offline` while the browser says so and the stream is not through. */
  show(state = this.#state): void {
    if (state === "open") this.#networkDown = false;
    const shown = this.#networkDown && (state === "connecting" || state === "reconnecting") ? "offline" : state;
    this.host.dispatch({ type: "connection.changed", connection: shown });
  }
}
