import { randomBytes } from "node:crypto";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import type pg from "pg";
import type { AbortCause, Coordination, StopKind, TurnLeases } from "../runtime/coordination.js";
import type { EventHub, EventListener } from "../runtime/event-hub.js";
import { LocalEventHub } from "../runtime/event-hub.js";
import { nextTurn } from "../runtime/event-loop.js";
import { stopReasons } from "../runtime/stop-reasons.js";
import { asStoreError, isUnreachable, reportUnreachable } from "./postgres-errors.js";
import { controlChannel, eventBucket, type eventsNotification, Listener } from "./postgres-listener.js";
import { NotifyProbes } from "./postgres-pooler.js";
import { prepared } from "./postgres-schema.js";
import type { SectionReads } from "./postgres-section.js";
import { PostgresSessionLock } from "./postgres-session-lock.js";
import { StoreUnavailable } from "./store-unavailable.js";

export type { Coordination } from "../runtime/coordination.js";

/** What the store tells a coordination about the leases of its holder that writes gave up or took. */
export interface LeaseHooks {
  /** A write that ended the session's turn gave the turn's lease up. */
  ended(sessionId: string): void;
  /** A write that started the session's turn took its lease, sent at `sent` (performance.now()). */
  taken(sessionId: string, sent: number): void;
}

/** What the Postgres store hands its coordination. */
export interface PostgresCoordinationOptions {
  pool: pg.Pool;
  /** Resolves once the store's schema is up to date (trying again after a database it could not reach). */
  ready(): Promise<void>;
  connectionString: string;
  schema: string;
  readEvents(sessionId: string, afterSeq: number, limit?: number): Promise<ProtocolEvent[]>;
  /** The session's newest event (none in an empty log). */
  readLastEvent(sessionId: string): Promise<ProtocolEvent[]>;
  /** Where a section's lock hands the session it read with it to the store. */
  sections: SectionReads;
  /** The store's tag in the notifications of its commits. */
  origin: string;
  /** The store's writes to the session not done yet. */
  writesInFlight(sessionId: string): Promise<unknown>[];
  /** Where the coordination registers, by holder, what to do when a write ended or took a turn's lease. */
  leases: Map<string, LeaseHooks>;
  leaseMs: number;
  /** The most connections holding session locks at once. */
  lockPoolSize: number;
}

/**
 * How instances on one Postgres database act as one:
 * - a session's critical sections take turns on an advisory lock (after this process's own
 *   queue, so an instance waits on the database with one connection per session at most); a
 *   section's lock passes straight to the session's next section when that one starts here
 *   before the event loop's turn ends (see {@link PostgresSessionLock});
 * - a turn is driven by the holder of its lease (a row with a holder, a fencing token and an
 *   expiry, renewed by a heartbeat every third of `leaseMs`); a dead holder's lease lapses. The
 *   store's write that starts a turn takes the lease for its instance (unless another live one
 *   holds it), and the turn's write that ends it gives the lease up;
 * - events reach other instances' streams through `LISTEN`: a commit notifies its session's
 *   bucket (`<schema>_events_<bucket>`, see {@link eventBucket}), which an instance listens to
 *   while someone here listens to a session in it; the payload names the session and its new
 *   seqs and carries the events when they are small (see {@link eventsNotification}), else they
 *   are read from the log, and after a dropped connection the listener reconnects and catches
 *   every listened session up from the log;
 * - stopping or deleting a session's turn reaches the instance that drives it over a control channel.
 */
export function postgresCoordination(options: PostgresCoordinationOptions): Coordination {
  const { pool, ready, schema: s } = options;
  const control = controlChannel(s);
  const holder = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const abortListeners: ((sessionId: string, cause: AbortCause) => void)[] = [];
  const abortLocally = (sessionId: string, cause: AbortCause) => {
    for (const listener of abortListeners) listener(sessionId, cause);
  };
  const lock = new PostgresSessionLock({
    connectionString: options.connectionString,
    ready,
    schema: s,
    sections: options.sections,
    writesInFlight: options.writesInFlight,
    poolSize: options.lockPoolSize,
  });
  const statements = {
    // A new holder gets the next fencing token; the same holder renews its own. Another
    // holder's lapsed lease is taken only as this instance saw it lapsed at an earlier look
    // (its token and expiry, $4 and $5, unchanged): see `lapsedSince`.
    acquire: prepared(
      s,
      "acquire_lease",
      `INSERT INTO ${s}.turn_leases AS lease (session_id, holder, token, expires_at)
       VALUES ($1, $2, 1, now() + make_interval(secs => $3))
       ON CONFLICT (session_id) DO UPDATE SET holder = $2, expires_at = now() + make_interval(secs => $3),
         token = CASE WHEN lease.holder = $2 THEN lease.token ELSE lease.token + 1 END
       WHERE lease.holder = $2
         OR (lease.expires_at <= now() AND lease.token = $4 AND lease.expires_at::text = $5)
       RETURNING token`,
    ),
    lease: prepared(
      s,
      "read_lease",
      `SELECT token, expires_at::text AS expires FROM ${s}.turn_leases
       WHERE session_id = $1 AND holder <> $2 AND expires_at <= now()`,
    ),
    renewOne: prepared(
      s,
      "renew_lease",
      `UPDATE ${s}.turn_leases SET expires_at = now() + make_interval(secs => $3)
       WHERE session_id = $1 AND holder = $2 RETURNING session_id`,
    ),
    release: prepared(s, "release_lease", `DELETE FROM ${s}.turn_leases WHERE session_id = $1 AND holder = $2`),
    // A lease that lapsed is still this holder's while its row names it: no other instance
    // took it (taking it names the taker), so none drove the turn meanwhile. An instance that
    // could not reach the database for longer than the lease renews it then and goes on.
    renew: prepared(
      s,
      "renew_leases",
      `UPDATE ${s}.turn_leases SET expires_at = now() + make_interval(secs => $3)
       WHERE holder = $1 AND session_id = ANY($2) RETURNING session_id`,
    ),
    releaseAll: prepared(
      s,
      "release_leases",
      `DELETE FROM ${s}.turn_leases WHERE holder = $1 AND session_id = ANY($2)`,
    ),
    notify: prepared(s, "notify", "SELECT pg_notify($1, $2)"),
  };

  // Each lease this instance holds, with when it certainly still holds it (performance.now()):
  // the lease runs `leaseMs` from the database's clock at the acquire or renewal, which is
  // later than the moment the query was sent; a third of the lease is kept as a margin.
  const held = new Map<string, number>();
  const leaseSeconds = options.leaseMs / 1000;
  const margin = options.leaseMs / 3;
  // Turns whose last write gave their lease up: releasing them asks nothing.
  const ended = new Set<string>();
  // Another holder's lapsed leases, as this instance first saw them (performance.now()). A
  // lapsed lease is not proof that its holder died: while the database could not be reached
  // no lease was renewed, and every live instance renews its own once it can (within a third
  // of a lease period). So one is taken only if at a later look it is still as it was.
  const lapsedSince = new Map<string, { token: string; expires: string; seen: number }>();
  // Leases the writes that started their turns took (until when they certainly hold), for the
  // drives those writes kick here: acquiring one asks nothing. One no drive takes lapses.
  const taken = new Map<string, number>();
  options.leases.set(holder, {
    ended(sessionId) {
      held.delete(sessionId);
      taken.delete(sessionId);
      ended.add(sessionId);
    },
    taken(sessionId, sent) {
      const now = performance.now();
      if (taken.size >= 1_000) for (const [id, until] of taken) if (until <= now) taken.delete(id);
      taken.set(sessionId, sent + options.leaseMs - margin);
    },
  });
  const turns: TurnLeases = {
    holder,
    async acquire(sessionId) {
      await ready();
      const until = taken.get(sessionId);
      taken.delete(sessionId);
      if (until !== undefined && performance.now() < until) {
        ended.delete(sessionId);
        held.set(sessionId, until);
        return true;
      }
      const sent = performance.now();
      const lapsed = lapsedSince.get(sessionId);
      // Seen at an earlier look (they come a lease period apart): half a period is time for
      // a live holder's renewals (every third of one) to land, whatever the timers' drift.
      const seenLapsed = lapsed && sent - lapsed.seen >= options.leaseMs / 2 ? lapsed : undefined;
      const { rows } = await pool.query({
        ...statements.acquire,
        values: [sessionId, holder, leaseSeconds, seenLapsed?.token ?? null, seenLapsed?.expires ?? null],
      });
      if (rows.length > 0) {
        lapsedSince.delete(sessionId);
        ended.delete(sessionId);
        held.set(sessionId, sent + options.leaseMs - margin);
        return true;
      }
      // Held by another instance: lapsed now, it may be taken a lease period later, if still so.
      const { rows: found } = await pool.query<{ token: string; expires: string }>({
        ...statements.lease,
        values: [sessionId, holder],
      });
      const [lease] = found;
      if (!lease) lapsedSince.delete(sessionId);
      else if (lease.token !== lapsed?.token || lease.expires !== lapsed.expires) {
        if (lapsedSince.size >= 10_000) lapsedSince.clear();
        lapsedSince.set(sessionId, { token: String(lease.token), expires: lease.expires, seen: sent });
      }
      return false;
    },
    async holds(sessionId) {
      // Renewed by the heartbeat, a held lease is known to be valid without asking the database;
      // past that (the heartbeat could not reach it), it is renewed here if it is still this holder's.
      const until = held.get(sessionId);
      if (until === undefined) return false;
      if (performance.now() < until) return true;
      const sent = performance.now();
      const { rows } = await pool.query({ ...statements.renewOne, values: [sessionId, holder, leaseSeconds] });
      if (rows.length === 0) return false;
      if (held.has(sessionId)) held.set(sessionId, sent + options.leaseMs - margin);
      return true;
    },
    async release(sessionId) {
      held.delete(sessionId);
      taken.delete(sessionId);
      if (ended.delete(sessionId)) return;
      await pool.query({ ...statements.release, values: [sessionId, holder] });
    },
  };

  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const renew = async () => {
    if (held.size === 0) return;
    const asked = [...held.keys()];
    const sent = performance.now();
    const { rows } = await pool.query<{ session_id: string }>({
      ...statements.renew,
      values: [holder, asked, leaseSeconds],
    });
    const renewed = new Set(rows.map((row) => row.session_id));
    for (const sessionId of asked) {
      const until = held.get(sessionId);
      // Given up meanwhile, or taken again after this renewal was sent: not this renewal's to judge.
      if (until === undefined || until > sent + options.leaseMs - margin) continue;
      if (renewed.has(sessionId)) {
        held.set(sessionId, sent + options.leaseMs - margin);
        continue;
      }
      held.delete(sessionId);
      abortLocally(sessionId, { kind: "lease_lost" });
    }
  };

  // Checks, once, that notifications reach the listening connection (see `start`).
  const probes = new NotifyProbes();
  let probed: Promise<void> | undefined;
  const listener = new Listener(options.connectionString, s, control, (name, payload) => {
    if (name !== control) {
      const [sessionId, first, last, origin, events] = JSON.parse(payload) as [
        string,
        number,
        number,
        string?,
        ProtocolEvent[]?,
      ];
      if (origin !== options.origin) {
        hub.notified(sessionId, first, last, events);
        return;
      }
      // This store's own commit: the runtime publishes it here once the write returns, which the
      // notification may overtake. Looked at after the session's writes in flight, it is read
      // from the notification or the log only if no one published it (a write made on the store directly).
      void Promise.allSettled(options.writesInFlight(sessionId))
        .then(nextTurn)
        .then(() => hub.notified(sessionId, first, last, events));
      return;
    }
    const [kind, sessionId, turnId, stop] = JSON.parse(payload) as [
      "end" | "abort" | "probe",
      string,
      string?,
      StopKind?,
    ];
    if (kind === "probe") probes.arrived(sessionId);
    else if (kind === "end") hub.endLocally(sessionId);
    // An instance of an earlier version names no cause (it passed on a cancel or a deletion
    // alike), and one of a later version may name one this one does not know: both said as a cancel.
    else if (turnId)
      abortLocally(sessionId, {
        kind: "requested",
        turnId,
        stop: stop !== undefined && Object.hasOwn(stopReasons, stop) ? stop : "cancel",
      });
  });
  const hub = new PostgresEventHub({
    readEvents: options.readEvents,
    readLastEvent: options.readLastEvent,
    listener,
  });
  listener.onConnect = () => hub.catchUpAll();
  listener.onListening = (buckets) => hub.listening(buckets);

  // What reaches the database reports a database it cannot reach as `StoreUnavailable`, and a pooler in transaction mode by name.
  reportUnreachable(turns, ["acquire", "holds", "release"]);
  reportUnreachable(lock, ["run"]);
  return {
    shared: true,
    lock,
    hub,
    turns,
    recoverEvery: options.leaseMs,
    async start() {
      // Started again after a failure: the listener connects once, and one heartbeat runs.
      try {
        await ready();
        await listener.start();
        // A notification must reach the listening connection, else fan-out would die silently
        // (behind a pooler in transaction mode). Its verdict stands; one that could not tell is asked again.
        const connections = listener.connections;
        probed ??= probes.check(
          (nonce) => pool.query({ ...statements.notify, values: [control, JSON.stringify(["probe", nonce])] }),
          () => listener.connections !== connections,
        );
        await probed.catch((error: unknown) => {
          if (isUnreachable(error) || error instanceof StoreUnavailable) probed = undefined;
          throw error;
        });
      } catch (error) {
        throw asStoreError(error);
      }
      heartbeat ??= setInterval(() => void renew().catch(() => {}), Math.max(50, options.leaseMs / 3));
      heartbeat.unref?.();
    },
    async requestAbort(sessionId, turnId, stop) {
      await pool
        .query({ ...statements.notify, values: [control, JSON.stringify(["abort", sessionId, turnId, stop])] })
        .catch((error: unknown) => Promise.reject(asStoreError(error)));
    },
    onAbort(listener) {
      abortListeners.push(listener);
    },
    async close() {
      lock.stop();
      clearInterval(heartbeat);
      options.leases.delete(holder);
      ended.clear();
      const leases = [...held.keys(), ...taken.keys()];
      held.clear();
      taken.clear();
      if (leases.length > 0) {
        await pool.query({ ...statements.releaseAll, values: [holder, leases] }).catch(() => {});
      }
      await listener.stop();
      await lock.close();
    },
  };
}

/** What the hub needs of the listener: a bucket listened to while sessions in it are listened to here. */
interface HubOptions {
  readEvents: PostgresCoordinationOptions["readEvents"];
  readLastEvent: PostgresCoordinationOptions["readLastEvent"];
  listener: Pick<Listener, "want" | "unwant" | "listening">;
}

/**
 * The event hub of an instance on Postgres: this instance's commits are delivered at once;
 * other instances' arrive as notifications, with their events or read from the log. Per session it keeps
 * the newest seq delivered, so each event reaches the listeners once and in order.
 *
 * A session's bucket is listened to while the session has a listener here. A listener reads
 * the log after subscribing (the SSE stream does), which may come before the bucket's
 * `LISTEN` is in effect: an event committed in between would never be notified. So once
 * the `LISTEN` is in effect, the hub reads the session's newest event and delivers it; a
 * listener that missed events sees the gap and reads them from the log.
 */
class PostgresEventHub implements EventHub {
  readonly #local = new LocalEventHub();
  readonly #delivered = new Map<string, number>();
  readonly #pending = new Map<string, Promise<void>>();
  /** The sessions whose bucket this hub asked the listener for. */
  readonly #wanted = new Set<string>();
  /** Sessions subscribed before their bucket was listened to: caught up once it is. */
  readonly #awaiting = new Set<string>();

  constructor(private readonly options: HubOptions) {}

  subscribe(sessionId: string, listener: EventListener, onEnd?: () => void): () => void {
    const unsubscribe = this.#local.subscribe(sessionId, listener, onEnd);
    if (!this.#wanted.has(sessionId)) {
      this.#wanted.add(sessionId);
      if (!this.options.listener.want(eventBucket(sessionId))) this.#awaiting.add(sessionId);
    }
    return () => {
      unsubscribe();
      if (!this.#local.has(sessionId)) this.#forget(sessionId);
    };
  }

  publish(sessionId: string, events: readonly ProtocolEvent[]): void {
    if (!this.#local.has(sessionId) || events.length === 0) return;
    if (this.#pending.has(sessionId)) this.#then(sessionId, async () => this.#deliver(sessionId, events));
    else this.#deliver(sessionId, events);
  }

  /** The store's deletion notified every instance (`endNotice`) as it committed; this one ends its streams now. */
  end(sessionId: string): void {
    this.endLocally(sessionId);
  }

  endAll(): void {
    for (const sessionId of this.#local.sessions()) this.endLocally(sessionId);
  }

  /** Ends the session's streams in this instance. */
  endLocally(sessionId: string): void {
    this.#local.end(sessionId);
    this.#forget(sessionId);
  }

  /**
   * An instance committed events `first`..`last` of a session: delivers those not delivered
   * yet, from the notification (`events`, when it carried them and nothing before them is
   * missing) or from the log.
   */
  notified(sessionId: string, first: number, last: number, events?: readonly ProtocolEvent[]): void {
    if (!this.#local.has(sessionId)) return;
    this.#then(sessionId, async () => {
      const after = this.#delivered.get(sessionId) ?? first - 1;
      if (last <= after) return;
      this.#deliver(
        sessionId,
        events && after >= first - 1 ? events : await this.options.readEvents(sessionId, after, last - after),
      );
    });
  }

  /** The listener listens to these buckets now: their sessions subscribed meanwhile are caught up. */
  listening(buckets: ReadonlySet<number>): void {
    for (const sessionId of this.#awaiting) {
      if (!buckets.has(eventBucket(sessionId))) continue;
      this.#awaiting.delete(sessionId);
      this.#catchUp(sessionId);
    }
  }

  /** After the listener reconnected: every listened session's events missed meanwhile, from the log. */
  catchUpAll(): void {
    for (const sessionId of this.#local.sessions()) {
      // A bucket wanted while the connection came up waits for its own LISTEN, then catches up again.
      if (this.options.listener.listening(eventBucket(sessionId))) this.#awaiting.delete(sessionId);
      this.#catchUp(sessionId);
    }
  }

  #catchUp(sessionId: string): void {
    this.#then(sessionId, async () => {
      const after = this.#delivered.get(sessionId);
      // Nothing delivered yet: the newest event is enough for a stream to see a gap and read the rest.
      const events =
        after === undefined
          ? await this.options.readLastEvent(sessionId)
          : await this.options.readEvents(sessionId, after);
      this.#deliver(sessionId, events);
    });
  }

  /** No one here listens to the session any more: its bucket may be unlistened. */
  #forget(sessionId: string): void {
    this.#delivered.delete(sessionId);
    this.#awaiting.delete(sessionId);
    if (this.#wanted.delete(sessionId)) this.options.listener.unwant(eventBucket(sessionId));
  }

  #deliver(sessionId: string, events: readonly ProtocolEvent[]): void {
    let delivered = this.#delivered.get(sessionId) ?? 0;
    const fresh: ProtocolEvent[] = [];
    for (const event of events) {
      if (event.seq <= delivered) continue;
      fresh.push(event);
      delivered = event.seq;
    }
    if (fresh.length === 0) return;
    if (this.#local.has(sessionId)) this.#delivered.set(sessionId, delivered);
    this.#local.publish(sessionId, fresh);
  }

  /** Runs `task` after the session's earlier tasks, so deliveries keep their order. */
  #then(sessionId: string, task: () => Promise<void>): void {
    const previous = this.#pending.get(sessionId) ?? Promise.resolve();
    const next = previous.then(task).catch(() => {});
    this.#pending.set(sessionId, next);
    void next.then(() => {
      if (this.#pending.get(sessionId) === next) this.#pending.delete(sessionId);
    });
  }
}
