import type { ClientAction } from "./client-action.js";
import type { ClientState } from "./client-state.js";
import { OutboxKeeper, type OutboxStorage, type UnsentMessage } from "./outbox-keeper.js";
import { reduceClientState } from "./reduce-client-state.js";
import { idempotencyKey } from "./retry.js";
import type { Transport } from "./transport.js";

/**
 * A client's outbox across pages: what an earlier page of the session kept unsent shows in
 * the outbox once the session's history is loaded, less what the server had taken (asking
 * the server about those older than the history loaded), and the outbox is kept in
 * `outboxStorage` after every change for the session's next client.
 */
export class KeptMessages {
  #creationKey: string | undefined;
  readonly #keeper: OutboxKeeper;
  readonly #transport: Transport;
  readonly #dispatch: (action: ClientAction) => void;

  /** `onHandedOver`: a newer client of this session shows what this one kept, so this one stops sending it. */
  constructor(
    storage: OutboxStorage | undefined,
    sessionId: string | undefined,
    transport: Transport,
    dispatch: (action: ClientAction) => void,
    onHandedOver: () => void,
  ) {
    this.#keeper = new OutboxKeeper(storage, sessionId, onHandedOver);
    this.#transport = transport;
    this.#dispatch = dispatch;
  }

  /**
   * The creation's `Idempotency-Key`, kept until it succeeds (and in `outboxStorage`, while
   * the new chat's messages wait there): created again after a failure, it is the same session.
   * Drawn when first asked for, not when the client is made: a client made while a page
   * renders on the server draws nothing random (Next.js refuses that in a prerender).
   */
  get creationKey(): string {
    this.#creationKey ??= this.#keeper.creationKey ?? idempotencyKey();
    return this.#creationKey;
  }

  /**
   * The client's first state with what an earlier page kept: a new chat's at once; a
   * session's shows with its history, which takes out what the server had taken.
   */
  initial(state: ClientState): ClientState {
    return state.sessionId === undefined ? restored(state, this.#keeper.takeStored()) : state;
  }

  /**
   * The state an action led to (`reduced`, from `previous`), with what an earlier page kept
   * once the history is loaded; the outbox is kept for the next page when it changed.
   */
  settle(previous: ClientState, reduced: ClientState): ClientState {
    const stored = reduced.hydrated ? this.#keeper.takeStored() : [];
    // Older history is not loaded: what it does not show, the server is asked about.
    const checking = this.#transport.findTakenMessages !== undefined && reduced.session.before !== undefined;
    const next = restored(reduced, stored, checking);
    if (checking && next.sessionId !== undefined) {
      const asked = stored.filter(({ key }) =>
        next.outbox.some((sent) => sent.key === key && sent.status === "checking"),
      );
      if (asked.length > 0) void this.#checkTaken(next.sessionId, asked);
    }
    if (stored.length > 0 || next.outbox !== previous.outbox || next.sessionId !== previous.sessionId) {
      this.#keeper.keep(next.sessionId, next.outbox, this.creationKey);
    }
    return next;
  }

  /** Whether the message with this key is one an earlier page kept. */
  wasKept(key: string): boolean {
    return this.#keeper.wasKept(key);
  }

  /** The client ended: nothing more is kept (what is kept stays for the session's next client). */
  stop(): void {
    this.#keeper.stop();
  }

  /** The session is gone: nothing of it is kept. */
  forget(sessionId: string | undefined): void {
    this.#keeper.forget(sessionId);
  }

  /**
   * Asks the server which of these kept messages, older than the history loaded, it took:
   * those leave the outbox (and the storage), the others show as not sent. When it cannot
   * say (out of reach, too old to know the read), they all show as not sent, as without the
   * question, and the person decides. Nothing is sent again here.
   */
  async #checkTaken(sessionId: string, messages: readonly UnsentMessage[]): Promise<void> {
    let taken: string[] = [];
    try {
      const found = await this.#transport.findTakenMessages?.(
        sessionId,
        messages.map(({ key }) => key),
      );
      taken = (found ?? []).map(({ key }) => key);
    } catch {
      // Not known: each is shown as not sent; sent again under its key, the server takes it once.
    }
    this.#dispatch({ type: "outbox.checked", messages, taken });
  }
}

/** The state with stored unsent messages in its outbox (each not in the history), as `checking` while the server is asked. */
function restored(state: ClientState, stored: readonly UnsentMessage[], checking = false): ClientState {
  return stored.length === 0
    ? state
    : reduceClientState(state, { type: "outbox.restored", messages: stored, checking });
}
