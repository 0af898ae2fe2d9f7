import type { RuntimeCore } from "./runtime-core.js";
import type { TurnDriver } from "./turn-driver.js";

/**
 * Resumes the turns a previous process (or a dead instance) left running. Many sessions, a
 * bounded number at a time, in the background: the runtime serves meanwhile, so a restart
 * is not down for as long as the longest resumed turn runs. A closing runtime picks up no
 * more. A pass that finds one still under way (with several instances, they repeat) leaves
 * it to it; one that fails is tried again.
 */
export class SessionRecovery {
  #recovering: Promise<void> | undefined;
  #recoverAgain: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly core: RuntimeCore,
    private readonly driver: TurnDriver,
    /** Whether the runtime is closing: it then resumes no more turns. */
    private readonly closing: () => boolean,
  ) {}

  /** The pass under way, until each of its turns has parked or ended; `undefined` when none is. */
  get recovering(): Promise<void> | undefined {
    return this.#recovering;
  }

  /** Finds the sessions left running and starts resuming them; resolves once they are found. */
  async recoverAll(): Promise<void> {
    const { core } = this;
    if (this.#recovering) return;
    const left = await core.store.listSessionsToRecover();
    if (this.#recovering || this.closing()) return;
    // Said once a turn is taken: with several instances, a lapsed lease is taken only at a later look.
    let said = false;
    const taking = () => {
      if (said) return;
      said = true;
      core.logger.warn(
        `hitl-kit: resuming turns left running by a server that stopped (this one before a restart, or an instance whose lease lapsed), ${RECOVERY_CONCURRENCY} at a time: ${left.length} found.`,
      );
    };
    this.#recovering = eachBounded(
      left,
      RECOVERY_CONCURRENCY,
      (sessionId) => this.#recover(sessionId, taking),
      this.closing,
    )
      .catch((error: unknown) => {
        core.trouble("recovering turns failed (it tries again)", error);
        this.#recoverAgain = setTimeout(() => void this.recoverAll().catch(() => {}), RECOVERY_RETRY_MS);
        this.#recoverAgain.unref?.();
      })
      .finally(() => {
        this.#recovering = undefined;
      });
  }

  /** Tries a failed pass no more. */
  stop(): void {
    clearTimeout(this.#recoverAgain);
  }

  /** Picks up one session a previous process (or a dead instance) left running. */
  async #recover(sessionId: string, taking: () => void): Promise<void> {
    const { core, driver } = this;
    const { coordination } = core;
    // A turn another live instance holds is not left over: its lease says so.
    if (driver.running(sessionId) || !(await coordination.turns.acquire(sessionId))) return;
    taking();
    // The driver gives the lease up when it stops; until it starts, it is this section's to give up.
    const releaseOnFailure = (error: unknown) =>
      coordination.turns.release(sessionId).then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    await core.lock
      .run(sessionId, async () => {
        const session = await core.requireSession(sessionId);
        if (session.status !== "running" && session.status !== "resuming") return undefined;
        // A crash mid-stream leaves a message cut off. Its step is not in the transcript, so the
        // driver runs it again and streams a new message; the cut-off one is abandoned, and
        // clients drop it rather than show its text twice. The driver's first write carries
        // these events, so a recovered session costs one write.
        return (await core.cutOffBatch(session))?.events ?? [];
      })
      .then((before) => {
        if (!before) return coordination.turns.release(sessionId);
        // The turn holds its place until it parks, ends or waits for the person's answers to
        // its tools' questions: a restart after a crash resumes a bounded number of turns at a
        // time, not every left-over model call at once.
        driver.kick(sessionId, before);
        return driver.doneOrWaiting(sessionId);
      }, releaseOnFailure);
  }
}

/** How many sessions a starting runtime recovers at a time, each until its resumed turn parks or ends. */
const RECOVERY_CONCURRENCY = 32;

/** How long after a recovery that failed (the store out of reach) it is tried again. */
const RECOVERY_RETRY_MS = 5_000;

/**
 * Runs `task` on every item, at most `limit` at a time, taking no more once `stopped()`;
 * rejects with the first failure once all have settled.
 */
async function eachBounded<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length && !stopped()) {
      const item = items[next++] as T;
      await task(item).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
