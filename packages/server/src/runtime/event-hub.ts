import type { ProtocolEvent } from "@hitl-kit/protocol";

/** A listener for one session's new events. */
export type EventListener = (event: ProtocolEvent) => void;

/**
 * Fans a session's freshly appended events out to this process's streams. Only
 * sessions with a listener have an entry, so a parked session holds no memory here.
 */
export class EventHub {
  readonly #listeners = new Map<string, Set<Subscriber>>();

  /**
   * Listens to a session's new events, and with `onEnd` to its deletion; returns the
   * function that stops listening.
   */
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

  /** Delivers events to every listener of their session. */
  publish(sessionId: string, events: readonly ProtocolEvent[]): void {
    const listeners = this.#listeners.get(sessionId);
    if (!listeners) return;
    for (const event of events) for (const { listener } of [...listeners]) listener(event);
  }

  /** Tells a deleted session's listeners that nothing more will come, and forgets them. */
  end(sessionId: string): void {
    const listeners = this.#listeners.get(sessionId);
    this.#listeners.delete(sessionId);
    for (const { onEnd } of listeners ?? []) onEnd?.();
  }
}

interface Subscriber {
  listener: EventListener;
  onEnd: (() => void) | undefined;
}
