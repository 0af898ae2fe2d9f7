import pg from "pg";
import { applicationName } from "./postgres-errors.js";

/**
 * How many channels a schema's event notifications are spread over. Sessions are hashed
 * into buckets, a commit notifies its session's bucket, and an instance listens only to the
 * buckets of the sessions it streams, so other instances' commits mostly do not wake it.
 * More buckets would filter better once an instance streams hundreds of sessions, but
 * PostgreSQL (before 19) compares each notification with a backend's channels one by one,
 * and a channel name (`<schema>_events_255`) must fit 63 bytes: 256 keeps both small. Every
 * instance of a schema must use the same count and hash, which is why it is fixed here.
 */
export const EVENT_BUCKETS = 256;

/** The bucket of a session: FNV-1a (32 bits) over its id's UTF-16 code units, modulo {@link EVENT_BUCKETS}. */
export function eventBucket(sessionId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < sessionId.length; index += 1) {
    hash ^= sessionId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % EVENT_BUCKETS;
}

/** The channel every instance listens to for stops, deletions and probes: `<schema>_control`. */
export function controlChannel(schema: string): string {
  return `${schema}_control`;
}

/** What a session's deletion notifies on the control channel: every instance ends its streams. */
export function endNotice(sessionId: string): string {
  return JSON.stringify(["end", sessionId]);
}

/** The channel a commit that appended events to a session notifies: `<schema>_events_<bucket>`. */
export function eventsChannel(schema: string, sessionId: string): string {
  return `${schema}_events_${eventBucket(sessionId)}`;
}

/**
 * The most bytes a notification of events carries inline. A batch's events are sent in its
 * notification when they fit (an answer's `tool.result`, a parked request, a few deltas), so
 * an instance streaming the session delivers them without reading the log; a bigger batch
 * names its seqs only, and is read from the log. PostgreSQL refuses payloads of 8000 bytes
 * or more, and every payload waits in its notification queue until each listener has read
 * it: kept well below.
 */
export const INLINE_EVENTS_BYTES = 2_000;

/**
 * The payload of a commit's notification: `[sessionId, first seq, last seq, origin]`, and the
 * events themselves (`bodies`, each as the log stores it) when they fit {@link INLINE_EVENTS_BYTES}.
 */
export function eventsNotification(sessionId: string, first: number, last: number, origin: string, bodies: string[]) {
  const named = JSON.stringify([sessionId, first, last, origin]);
  const inline = `${named.slice(0, -1)},[${bodies.join(",")}]]`;
  return Buffer.byteLength(inline) <= INLINE_EVENTS_BYTES ? inline : named;
}

/**
 * One connection that `LISTEN`s on a control channel always, and on each event bucket while
 * someone in this instance wants it, reconnecting (with backoff) whenever it drops. A bucket
 * counts as listened only once its `LISTEN` has committed, and stops counting before its
 * `UNLISTEN` is sent, so "listened" never claims more than the database delivers.
 */
export class Listener {
  #client: pg.Client | undefined;
  #stopped = false;
  #connecting: Promise<void> | undefined;
  #syncing: Promise<void> | undefined;
  /** How many sessions of this instance want each bucket. */
  readonly #wanted = new Map<number, number>();
  /** The buckets the current connection certainly listens to. */
  #listened = new Set<number>();
  /** How many times it has connected (and listened): a change tells that the connection was replaced. */
  connections = 0;
  /** Called after each (re)connection, once listening to the control channel and every wanted bucket. */
  onConnect: () => void = () => {};
  /** Called when buckets wanted while the connection was up have come to be listened. */
  onListening: (buckets: ReadonlySet<number>) => void = () => {};

  constructor(
    private readonly connectionString: string,
    private readonly schema: string,
    private readonly control: string,
    private readonly onMessage: (channel: string, payload: string) => void,
  ) {}

  /** Connects and listens, unless it does already; a dropped connection is reconnected by itself. */
  start(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#connecting?.catch(() => {});
    await this.#client?.end().catch(() => {});
  }

  /** One more session wants the bucket; answers whether it is listened already. */
  want(bucket: number): boolean {
    this.#wanted.set(bucket, (this.#wanted.get(bucket) ?? 0) + 1);
    if (this.#listened.has(bucket)) return true;
    this.#sync();
    return false;
  }

  /** One session less wants the bucket: the last one leaving unlistens it. */
  unwant(bucket: number): void {
    const left = (this.#wanted.get(bucket) ?? 1) - 1;
    if (left > 0) {
      this.#wanted.set(bucket, left);
      return;
    }
    this.#wanted.delete(bucket);
    this.#sync();
  }

  /** Whether the bucket is certainly listened to now. */
  listening(bucket: number): boolean {
    return this.#listened.has(bucket);
  }

  #channel(bucket: number): string {
    return `${this.schema}_events_${bucket}`;
  }

  /** Brings the connection's channels in line with the wanted buckets, one round trip at a time. */
  #sync(): void {
    const client = this.#client;
    if (this.#syncing || !client || this.#stopped) return;
    this.#syncing = this.#reconcile().finally(() => {
      this.#syncing = undefined;
      // Reconnected meanwhile: buckets wanted or given up since the new connection listened.
      if (this.#client !== client) this.#sync();
    });
  }

  async #reconcile(): Promise<void> {
    for (;;) {
      const client = this.#client;
      if (!client || this.#stopped) return;
      const add = [...this.#wanted.keys()].filter((bucket) => !this.#listened.has(bucket));
      const remove = [...this.#listened].filter((bucket) => !this.#wanted.has(bucket));
      if (add.length === 0 && remove.length === 0) return;
      // No longer counted as listened before the UNLISTEN is sent: a session wanting it again meanwhile waits for its LISTEN.
      for (const bucket of remove) this.#listened.delete(bucket);
      const statements = [
        ...add.map((bucket) => `LISTEN ${this.#channel(bucket)}`),
        ...remove.map((bucket) => `UNLISTEN ${this.#channel(bucket)}`),
      ];
      try {
        // One implicit transaction: every LISTEN is in effect once it returns.
        await client.query(statements.join("; "));
      } catch {
        // The connection dropped: reconnecting listens to every wanted bucket.
        return;
      }
      if (this.#client !== client) return;
      const listened = new Set(add);
      for (const bucket of listened) this.#listened.add(bucket);
      if (listened.size > 0) this.onListening(listened);
    }
  }

  async #connect(): Promise<void> {
    for (let attempt = 0; !this.#stopped; attempt += 1) {
      const client = new pg.Client({ application_name: applicationName(), connectionString: this.connectionString });
      client.on("notification", ({ channel, payload }) => {
        if (payload) this.onMessage(channel, payload);
      });
      const dropped = () => {
        if (this.#client !== client) return;
        this.#client = undefined;
        this.#listened = new Set();
        if (!this.#stopped) void this.start();
      };
      client.on("error", dropped);
      client.on("end", dropped);
      try {
        await client.connect();
        const buckets = [...this.#wanted.keys()];
        await client.query(
          [this.control, ...buckets.map((bucket) => this.#channel(bucket))].map((name) => `LISTEN ${name}`).join("; "),
        );
        if (this.#stopped) {
          await client.end();
          return;
        }
        this.#client = client;
        this.connections += 1;
        this.#listened = new Set(buckets);
        this.onConnect();
        // Buckets wanted or given up while connecting.
        this.#sync();
        return;
      } catch {
        await client.end().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * 2 ** attempt)));
      }
    }
  }
}
