import type { ProtocolEvent } from "@hitl-kit/protocol";

/** A listener for one session's new events. */
export type EventListener = (event: ProtocolEvent) => void;

/**
 * Fans a session's freshly appended events out to the streams of this process. One
 * interface, two implementations: `LocalEventHub` for one process, and the Postgres
 * store's, which also delivers what other instances appended (told by `NOTIFY`, read from
 * the log). A listener gets events in order; it may see a gap after a lost notification,
 * and reads the log to fill it (the SSE stream does).
 */
export interface EventHub {
  /**
   * Listens to a session's new events, and with `onEnd` to its deletion; returns the
   * function that stops listening.
   */
  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void;
  /** Delivers events this process appended (and committed) to every listener of their session. */
  publish(sessionId: string, events: readonly ProtocolEvent[]): void;
  /** Tells a deleted session's listeners that nothing more will come, and forgets them. */
  end(sessionId: string): void;
  /** Tells every listener of this process that nothing more will come through it (the runtime closed), and forgets them. */
  endAll(): void;
}

/**
 * The event hub of one process. Only sessions with a listener have an entry, so a parked
 * session holds no memory here.
 */
export class LocalEventHub implements EventHub {
  readonly #listeners = new Map<string, Set<Subscriber>>();

  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void {
    let listeners = this.#listeners.get(sessionId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(sessionId, listeners);
    }
    const subscriber: Subscriber = { listener, onEnd };
    listeners.add(subscriber);
    return () => {
      listeners.delete(subscriber);
      if (listeners.size === 0 && this.#listeners.get(sessionId) === listeners) this.#listeners.delete(sessionId);
    };
  }

  publish(sessionId: string, events: readonly ProtocolEvent[]): void {
    const listeners = this.#listeners.get(sessionId);
    if (!listeners) return;
    for (const event of events) for (const { listener } of [...listeners]) listener(event);
  }

  end(sessionId: string): void {
    const listeners = this.#listeners.get(sessionId);
    this.#listeners.delete(sessionId);
    for (const { onEnd } of listeners ?? []) onEnd?.();
  }

  endAll(): void {
    for (const sessionId of this.sessions()) this.end(sessionId);
  }

  /** Whether anyone in this process listens to the session. */
  has(sessionId: string): boolean {
    return this.#listeners.has(sessionId);
  }

  /** The sessions someone in this process listens to. */
  sessions(): string[] {
    return [...this.#listeners.keys()];
  }
}

interface Subscriber {
  listener: EventListener;
  onEnd: (() => void) | undefined;
}
