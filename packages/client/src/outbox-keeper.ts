import { isIdempotencyKey } from "@hitl-kit/protocol";
import type { OutgoingMessage } from "./client-state.js";

/** Where a client keeps its session's unsent messages: `sessionStorage`, `localStorage`, or anything with these three methods. */
export interface OutboxStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A message kept for the next page: its key and text, and why it was not sent when it had failed. */
export interface UnsentMessage {
  key: string;
  text: string;
  error?: { code: string; message: string };
}

/**
 * The unsent messages a storage keeps for a session (or, without one, for a chat that has
 * no session yet), oldest first: what the session's next client shows as not sent. A
 * sidebar can list a chat by them before the server knows its first message.
 * @example
 * const unsent = unsentMessages(sessionStorage, sessionId);
 */
export function unsentMessages(storage: OutboxStorage, sessionId?: string): UnsentMessage[] {
  return readItem(storage, sessionId).messages;
}

/**
 * Forgets the unsent messages a storage keeps, of every session and of a chat not created
 * yet: on sign-out, so the next person in the tab does not see the last one's. Close the
 * chat's client first (unmount it), or it writes its outbox back. Leaves the app's own items.
 * @example
 * clearUnsentMessages(sessionStorage);
 */
export function clearUnsentMessages(storage: {
  readonly length: number;
  key(index: number): string | null;
  removeItem(key: string): void;
}): void {
  const items = Array.from({ length: storage.length }, (_, index) => storage.key(index));
  for (const item of items) if (item?.startsWith(ITEM_PREFIX)) storage.removeItem(item);
}

/**
 * Keeps one client's outbox in a storage for the session's next client. A client that
 * shows what an earlier one kept takes the item over: the earlier one stops writing it and
 * lets go of the messages it was still sending (`onHandedOver`), which the newer one shows
 * as not sent, so a message the person took back there is not sent by a client they left.
 */
export class OutboxKeeper {
  /** A new chat's creation key, kept with its messages: created again, it is the same session. */
  readonly creationKey: string | undefined;
  readonly #storage: OutboxStorage | undefined;
  readonly #onHandedOver: () => void;
  /** The stored messages not yet given to the client's outbox: kept in the item until they are. */
  #pending: readonly UnsentMessage[];
  /** The stored messages given to the client's outbox, by key, as stored: one still `checking` is kept so, with its reason. */
  readonly #given = new Map<string, UnsentMessage>();
  #item: string | undefined;
  /** Its client ended: it writes nothing more. */
  #stopped = false;

  constructor(storage: OutboxStorage | undefined, sessionId: string | undefined, onHandedOver: () => void) {
    this.#storage = storage;
    this.#onHandedOver = onHandedOver;
    const stored = storage ? readItem(storage, sessionId) : { messages: [], creationKey: undefined };
    this.#pending = stored.messages;
    this.creationKey = stored.creationKey;
    if (stored.messages.length > 0) this.#claim(itemOf(sessionId), true);
  }

  /** The stored messages, once: the client shows them when the session's history is loaded (asked on every change, so cheap when none). */
  takeStored(): readonly UnsentMessage[] {
    const stored = this.#pending;
    if (stored.length > 0) this.#pending = [];
    for (const message of stored) this.#given.set(message.key, message);
    return stored;
  }

  /** Whether the message with this key is one an earlier page kept (given by {@link OutboxKeeper.takeStored}). */
  wasKept(key: string): boolean {
    return this.#given.has(key);
  }

  /** Its client ended: what the item holds stays for the session's next client, unwritten from now on. */
  stop(): void {
    this.#stopped = true;
  }

  /** The session is gone: nothing of it is kept. */
  forget(sessionId: string | undefined): void {
    this.#pending = [];
    try {
      this.#storage?.removeItem(itemOf(sessionId));
    } catch {
      // A storage that refuses keeps a stale item: the next client of a deleted session finds nothing to show it in.
    }
  }

  /**
   * Keeps the outbox (and what is not shown yet) for the session's next client; a storage
   * that refuses keeps nothing. A message being checked is kept as it was stored, so a page
   * reloaded before the check answers still shows why it was not sent.
   */
  keep(sessionId: string | undefined, outbox: readonly OutgoingMessage[], creationKey: string): void {
    const storage = this.#storage;
    if (!storage || this.#stopped) return;
    const item = itemOf(sessionId);
    const shown = new Set(outbox.map((message) => message.key));
    const messages = [
      ...this.#pending.filter((message) => !shown.has(message.key)),
      ...outbox.map((message) => (message.status === "checking" && this.#given.get(message.key)) || unsent(message)),
    ];
    try {
      if (item !== this.#item) {
        // A new chat's messages move to its session's item once it has one.
        if (this.#item !== undefined && keepers.get(storage)?.get(this.#item) === this) this.#release(this.#item);
        if (messages.length === 0) return;
        this.#claim(item, false);
      }
      if (keepers.get(storage)?.get(item) !== this) return; // handed over to a newer client
      if (messages.length === 0) storage.removeItem(item);
      else storage.setItem(item, JSON.stringify({ messages, ...(sessionId === undefined ? { creationKey } : {}) }));
    } catch {
      // Nothing is lost now: the messages stay in `outbox`; only the next page would not show them.
    }
  }

  /** Keeps the item from now on; the client that kept it before stops writing it, and with `handOver` lets go of its messages. */
  #claim(item: string, handOver: boolean): void {
    const storage = this.#storage;
    if (!storage) return;
    this.#item = item;
    const items = keepers.get(storage) ?? new Map<string, OutboxKeeper>();
    keepers.set(storage, items);
    const before = items.get(item);
    items.set(item, this);
    if (handOver && before && before !== this) before.#onHandedOver();
  }

  #release(item: string): void {
    this.#storage?.removeItem(item);
    if (this.#storage) keepers.get(this.#storage)?.delete(item);
  }
}

/** The keeper of each storage item: the newest client of its session. */
const keepers = new WeakMap<OutboxStorage, Map<string, OutboxKeeper>>();

/** The storage item of a session's unsent messages, or of a chat that has no session yet. */
function itemOf(sessionId: string | undefined): string {
  return `${ITEM_PREFIX}${sessionId ?? "new"}`;
}

const ITEM_PREFIX = "hitl-kit:outbox:";

function unsent({ key, text, status, error }: OutgoingMessage): UnsentMessage {
  return status === "failed" && error
    ? { key, text, error: { code: error.code, message: error.message } }
    : { key, text };
}

/** What an item holds; nothing when it holds nothing readable (or the storage cannot be read). */
function readItem(storage: OutboxStorage, sessionId: string | undefined) {
  try {
    const stored: unknown = JSON.parse(storage.getItem(itemOf(sessionId)) ?? "{}");
    const { messages, creationKey } = (stored ?? {}) as Record<string, unknown>;
    return {
      messages: Array.isArray(messages) ? messages.flatMap(asUnsent) : [],
      creationKey:
        sessionId === undefined && typeof creationKey === "string" && isIdempotencyKey(creationKey)
          ? creationKey
          : undefined,
    };
  } catch {
    return { messages: [], creationKey: undefined };
  }
}

function asUnsent(value: unknown): UnsentMessage[] {
  if (typeof value !== "object" || value === null) return [];
  const { key, text, error } = value as Record<string, unknown>;
  if (typeof key !== "string" || !isIdempotencyKey(key) || typeof text !== "string" || text.trim() === "") return [];
  const { code, message } = (error ?? {}) as Record<string, unknown>;
  return [
    typeof code === "string" && typeof message === "string" ? { key, text, error: { code, message } } : { key, text },
  ];
}
