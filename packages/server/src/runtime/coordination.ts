import { type EventHub, LocalEventHub } from "./event-hub.js";
import { SessionLock } from "./session-lock.js";

/** Runs critical sections one at a time per session. */
export interface SessionLocker {
  /** Runs `section` once no other section of this session runs — in this process, or in any instance sharing the store. */
  run<T>(sessionId: string, section: () => Promise<T>): Promise<T>;
}

/**
 * Which instance drives a session's turn: the holder of its lease. A lease lapses when its
 * holder stops renewing it (it died), and then another instance may take the turn over.
 */
export interface TurnLeases {
  /** This instance's name in the leases; a turn's writes carry it (`WriteBatch.requireLease`). */
  readonly holder: string;
  /** Takes the lease for this instance, or keeps it; `false` when another live instance holds it. */
  acquire(sessionId: string): Promise<boolean>;
  /** Whether this instance still holds the lease (checked under the session lock before each write of a turn). */
  holds(sessionId: string): Promise<boolean>;
  /** Gives the lease up. */
  release(sessionId: string): Promise<void>;
}

/**
 * What stopped a turn from outside its driver: the person's Stop (`"cancel"`), the session's
 * deletion (`"delete"`), or the person's new message while a tool of the turn waited for their
 * answer (`"message"`).
 */
export type StopKind = "cancel" | "delete" | "message";

/**
 * Why a coordination asks this instance to stop driving a turn: another instance passed a
 * person's cancel, a deletion or a new message (`stop`) of the turn `turnId` on, or this
 * instance lost the lease. The tool's `ctx.signal` and the questions it asked
 * are cancelled saying which.
 */
export type AbortCause = { kind: "requested"; turnId: string; stop: StopKind } | { kind: "lease_lost" };

/**
 * What runtime instances sharing one store need to act as one: a lock per session across
 * them, events fanned out across them, and one driver per turn. A store for several
 * instances provides it (`SessionStore.coordinate`); without one, `localCoordination()`
 * serves one process.
 */
export interface Coordination {
  /** `true` when other instances may share the store. */
  readonly shared: boolean;
  /** Runs each session's critical sections one at a time, across every instance sharing the store. */
  readonly lock: SessionLocker;
  /** Fans committed events out to the event streams of this instance (and of the others, when shared). */
  readonly hub: EventHub;
  /** Decides which instance drives each session's turn. */
  readonly turns: TurnLeases;
  /** How often (ms) an instance looks for turns whose driver died; `undefined` in one process. */
  readonly recoverEvery: number | undefined;
  /** Starts listening to the other instances. */
  start(): Promise<void>;
  /** Asks whichever instance drives the session's turn `turnId` to stop it, saying why (`stop`). */
  requestAbort(sessionId: string, turnId: string, stop: StopKind): Promise<void>;
  /** `listener` is called when another instance asks to stop a turn, or when this instance lost a turn's lease. */
  onAbort(listener: (sessionId: string, cause: AbortCause) => void): void;
  /** Gives up this instance's leases and stops listening. */
  close(): Promise<void>;
}

/** The coordination of one process: an in-memory lock and hub; every lease is this process's. */
export function localCoordination(): Coordination {
  return {
    shared: false,
    lock: new SessionLock(),
    hub: new LocalEventHub(),
    turns: {
      holder: "local",
      acquire: async () => true,
      holds: async () => true,
      release: async () => {},
    },
    recoverEvery: undefined,
    start: async () => {},
    requestAbort: async () => {},
    onAbort: () => {},
    close: async () => {},
  };
}

/**
 * Thrown into a turn this instance no longer holds the lease of, or leaves as it closes
 * (`why`): it stops without writing. A tool's `ctx.ask` throws it too, and `ctx.signal`
 * aborts with it: a tool that catches errors throws this one again, so the turn's next
 * driver settles the call (or, with `rerunAfterRestart`, runs it again).
 * @example
 * try {
 *   seats = await ctx.ask({ prompt: "How many seats?", schema: Seats });
 * } catch (error) {
 *   if (error instanceof LeaseLost) throw error;
 *   return { booked: false, error: String(error) };
 * }
 */
export class LeaseLost extends Error {
  constructor(sessionId: string, why?: string) {
    super(
      why
        ? `This instance left session ${sessionId}'s turn (${why}); the next to resume it drives it.`
        : `This instance lost the lease of session ${sessionId}'s turn; another instance drives it.`,
    );
    this.name = "LeaseLost";
  }
}
