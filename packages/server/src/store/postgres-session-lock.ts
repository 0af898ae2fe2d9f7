import type pg from "pg";
import type { SessionLocker } from "../runtime/coordination.js";
import { clearImmediate, setImmediate } from "../runtime/event-loop.js";
import { SessionLock } from "../runtime/session-lock.js";
import { resilientPool } from "./postgres-errors.js";
import { prepared } from "./postgres-schema.js";
import type { LockedRow, SectionRead, SectionReads } from "./postgres-section.js";

/** The advisory-lock namespace of session locks (the first key of `pg_advisory_lock(int, int)`). */
const LOCK_SPACE = 0x48495431; // "HIT1"

/** How many sections in a row may take a session's lock over from the one before. */
const HANDOVERS = 4;

/** What {@link PostgresSessionLock} needs of its store. */
export interface PostgresSessionLockOptions {
  connectionString: string;
  /** Resolves once the store's schema is up to date (trying again after a database it could not reach). */
  ready(): Promise<void>;
  schema: string;
  /** Where a section's lock hands the session it read with it to the store. */
  sections: SectionReads;
  /** The store's writes to the session not done yet. */
  writesInFlight(sessionId: string): Promise<unknown>[];
  /** The most connections that hold session locks at once (sections of other sessions wait for one). */
  poolSize: number;
}

/**
 * A connection of the lock pool holding a session's advisory lock. While no query runs on it,
 * a drop is only recorded (`broken`): the next query on it (the unlock) reports it, and the
 * event alone must not end the process.
 */
class HeldLock {
  broken: unknown;
  readonly #dropped = (error: Error) => {
    this.broken = error;
  };

  constructor(readonly client: pg.PoolClient) {
    client.on("error", this.#dropped);
  }

  /** Gives the connection back to the pool, or ends it when it broke. */
  release(): void {
    this.client.off("error", this.#dropped);
    this.client.release(this.broken instanceof Error ? this.broken : undefined);
  }
}

/**
 * A session's critical sections across instances on one database: after this process's own
 * queue (so an instance waits on the database with one connection per session at most), a
 * section takes the session's advisory lock, reading what it needs in the same round trip
 * (`lock_session`).
 *
 * A section's lock is kept for the rest of the event loop's turn after the section ends: a
 * next section of the session that starts meanwhile in this process (a turn's next step,
 * the drive an answer resumes) takes it over with the read the section kept up to date, as if
 * the two were one section, and costs no round trip. Not after a write to the session from
 * outside its sections, and at most `HANDOVERS` times in a row, so sections waiting in other
 * instances get their turn.
 */
export class PostgresSessionLock implements SessionLocker {
  readonly #options: PostgresSessionLockOptions;
  // Sections wait here, never on the store's pool, so a section holding a lock always finds
  // a connection for its reads and writes.
  readonly #pool: pg.Pool;
  readonly #local = new SessionLock();
  readonly #kept = new Map<string, { held: HeldLock; read: SectionRead; handovers: number; timer: NodeJS.Immediate }>();
  readonly #lock: ReturnType<typeof prepared>;
  readonly #unlock: ReturnType<typeof prepared>;
  #stopped = false;

  constructor(options: PostgresSessionLockOptions) {
    this.#options = options;
    this.#pool = resilientPool({ connectionString: options.connectionString, max: options.poolSize });
    this.#lock = prepared(options.schema, "lock_session", `SELECT * FROM ${options.schema}.lock_session($1, $2)`);
    this.#unlock = prepared(options.schema, "unlock_session", "SELECT pg_advisory_unlock($1, hashtext($2))");
  }

  run<T>(sessionId: string, section: () => Promise<T>): Promise<T> {
    return this.#local.run(sessionId, async () => {
      await this.#options.ready();
      const { sections } = this.#options;
      const taken = this.#take(sessionId);
      let held: HeldLock;
      let read: SectionRead | undefined;
      if (taken) {
        ({ held, read } = taken);
      } else {
        held = new HeldLock(await this.#pool.connect());
        // A write from outside the sections that ends from here may have missed the lock's snapshot.
        const reading = sections.reading(sessionId);
        try {
          // The lock and the section's first reads in one round trip (see `lockSessionFunction`).
          const {
            rows: [row],
          } = await held.client.query<LockedRow>({ ...this.#lock, values: [LOCK_SPACE, sessionId] });
          read = sections.open(sessionId, row, reading);
        } catch (error) {
          reading.done();
          held.broken = error;
          held.release();
          throw error;
        }
      }
      let failed = true;
      try {
        const result = await sections.continue(read, section);
        failed = false;
        return result;
      } finally {
        const handovers = (taken?.handovers ?? 0) + 1;
        const keep = !failed && !this.#stopped && handovers <= HANDOVERS;
        sections.end(read, keep);
        if (keep) this.#keep(sessionId, held, read, handovers);
        else this.#release(held, sessionId);
      }
    });
  }

  /** Lets every kept lock go; sections after this unlock as they end. */
  stop(): void {
    this.#stopped = true;
    for (const [sessionId, { held, read, timer }] of this.#kept) {
      clearImmediate(timer);
      this.#options.sections.end(read, false);
      this.#release(held, sessionId);
    }
    this.#kept.clear();
  }

  /** Lets every kept lock go and closes the lock connections. */
  async close(): Promise<void> {
    this.stop();
    await this.#pool.end();
  }

  /** The lock the session's last section kept, with its read, when the next section may go on with them. */
  #take(sessionId: string) {
    const handed = this.#kept.get(sessionId);
    if (!handed) return undefined;
    this.#kept.delete(sessionId);
    clearImmediate(handed.timer);
    const read = this.#options.sections.take(sessionId);
    // Not when a write outside the sections came (or is under way) since, nor on a broken connection.
    if (read && this.#options.writesInFlight(sessionId).length === 0 && handed.held.broken === undefined) {
      return { ...handed, read };
    }
    if (read) this.#options.sections.end(read, false);
    this.#release(handed.held, sessionId);
    return undefined;
  }

  /** Keeps the section's lock until the event loop's turn ends. */
  #keep(sessionId: string, held: HeldLock, read: SectionRead, handovers: number): void {
    const entry = {
      held,
      read,
      handovers,
      timer: setImmediate(() => {
        if (this.#kept.get(sessionId) !== entry) return;
        this.#kept.delete(sessionId);
        this.#options.sections.end(read, false);
        this.#release(held, sessionId);
      }),
    };
    this.#kept.set(sessionId, entry);
  }

  /**
   * Unlocks. The caller goes on without waiting: a next section (here or in another instance)
   * waits for the unlock in the database, and the connection returns to the pool once it is
   * done (or, when it failed, the connection is gone and the lock with it).
   */
  #release(held: HeldLock, sessionId: string): void {
    void held.client
      .query({ ...this.#unlock, values: [LOCK_SPACE, sessionId] })
      .catch((error: unknown) => {
        held.broken = error;
      })
      .finally(() => held.release());
  }
}
