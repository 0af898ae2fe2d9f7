import { ProtocolError } from "@hitl-kit/protocol";
import { StoreUnavailable } from "../store/store-unavailable.js";
import type { AgentRuntime, RuntimeHealth } from "./agent-runtime-types.js";
import { nextTurn } from "./event-loop.js";
import type { ExpiryTimer } from "./expiry-timer.js";
import { MAX_TIMER_MS } from "./model-step.js";
import type { RetentionSweeper } from "./retention-sweeper.js";
import type { RuntimeCore } from "./runtime-core.js";
import { SessionRecovery } from "./session-recovery.js";
import type { TurnDriver } from "./turn-driver.js";

/**
 * The runtime's start, health and shutdown: reaching the store (tried again until it
 * answers), recovering the turns left running, and what runs in the background (expiry,
 * retention, looking for turns whose instance died), until `close()` stops it all.
 */
export class RuntimeLifecycle {
  readonly #recovery: SessionRecovery;
  #closing = false;
  #started = false;
  /** The start failed for good (`StoreUnavailable.lasting`): it is not tried again. */
  #failed = false;
  /** Starts that failed and were tried again, so the one that succeeds says it did. */
  #failedStarts = 0;
  #closed = false;
  #shutdown: Promise<void> | undefined;
  /** The last attempt to start: `ready`, or one of its retries. */
  #starting: Promise<void> = Promise.resolve();
  #startAgain: ReturnType<typeof setTimeout> | undefined;
  #orphans: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly core: RuntimeCore,
    private readonly driver: TurnDriver,
    private readonly expiry: ExpiryTimer,
    private readonly sweeper: RetentionSweeper | undefined,
  ) {
    this.#recovery = new SessionRecovery(core, driver, () => this.#closing);
  }

  /** `close()` was called: the runtime starts no turn. */
  get closing(): boolean {
    return this.#closing;
  }

  /** `close()` has finished: the session locks are gone. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Starts the runtime, once: answers `ready` (see `AgentRuntime.ready`). `ready` rejects with
   * the first failure, for an app that awaits it; one that goes on has the start tried again
   * (100 ms, doubling to 5 s) until it succeeds or the runtime closes, so a database that
   * comes up later gets its fan-out, heartbeat, recovery and expiry. What trying again cannot
   * fix (a schema a newer version migrated) is not tried again.
   */
  start(): Promise<void> {
    const ready = this.#start();
    this.#starting = ready;
    ready.catch(this.#retryStart(0));
    return ready;
  }

  /** Resolves when no turn is being driven and no session left running waits to be resumed. */
  async idle(): Promise<void> {
    while (this.#recovery.recovering) await this.#recovery.recovering;
    await this.driver.idle();
  }

  /** See `AgentRuntime.idle`: as {@link idle}, but a turn whose tools wait for the person's answers counts as idle. */
  async settled(): Promise<void> {
    while (this.#recovery.recovering) await this.#recovery.recovering;
    await this.driver.settled();
  }

  /** See `AgentRuntime.health`. */
  async health(): Promise<RuntimeHealth> {
    if (this.#closing) return { ok: false, status: "closing" };
    if (!this.#started) return { ok: false, status: this.#failed ? "failed" : "starting" };
    try {
      await this.core.store.getSession("ses_health_check");
      return { ok: true, status: "serving" };
    } catch {
      return { ok: false, status: "store_unavailable" };
    }
  }

  /** See `AgentRuntime.close`. */
  close({ timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<void> {
    const { core, driver } = this;
    // A second call (a signal handler and a `finally`, say) waits for the first one's close.
    this.#shutdown ??= (async () => {
      this.#closing = true;
      driver.stop();
      this.expiry.stop();
      this.sweeper?.stop();
      clearInterval(this.#orphans);
      clearTimeout(this.#startAgain);
      this.#recovery.stop();
      // A start that failed was reported by `ready`; closing goes on without it.
      await this.#starting.catch(() => {});
      const drained = this.idle();
      let idle = false;
      void drained.then(() => {
        idle = true;
      });
      // A turn whose tools only wait for answers that outlive a restart is left at once: its
      // questions stay open for the next start (or another instance), and nothing is lost.
      const leavable = (async () => {
        while (this.#recovery.recovering) await this.#recovery.recovering;
        await driver.leavable();
      })();
      const inTime = await settlesWithin(Promise.race([drained, leavable]), timeoutMs);
      if (!idle) {
        const left = driver.leave();
        const next = core.coordination.shared ? "another instance" : "the next start";
        const sessions = `${left.slice(0, 10).join(", ")}${left.length > 10 ? ", …" : ""}`;
        if (!inTime) {
          core.logger.warn(
            `hitl-kit: closing: ${left.length} turn(s) still running after ${timeoutMs} ms were left for ${next} to resume (a tool call still running then gets an error result saying it may or may not have completed, or runs again when its tool is implemented with rerunAfterRestart): ${sessions}.`,
          );
        } else if (left.length > 0) {
          core.logger.warn(
            `hitl-kit: closing: ${left.length} turn(s) whose tools wait only for answers to questions that outlive a restart (rerunAfterRestart) were left for ${next}, their questions still open: ${sessions}.`,
          );
        }
        await drained;
      }
      // Nothing more comes through this instance: its streams end, and browsers reconnect elsewhere.
      core.hub.endAll();
      await core.coordination.close();
      this.#closed = true;
    })();
    return this.#shutdown;
  }

  // What runs in the background. An attempt that failed (the store could not be reached) runs
  // again: the coordination's start is idempotent, and what follows recovery runs once.
  async #start(): Promise<void> {
    const { core, expiry } = this;
    const { coordination } = core;
    await coordination.start();
    await this.#recovery.recoverAll();
    this.#started = true;
    // The log's last word on the store was a failure: say it is over.
    if (this.#failedStarts > 0)
      core.logger.warn(
        `hitl-kit: started after ${this.#failedStarts} failed attempt${this.#failedStarts === 1 ? "" : "s"}; serving.`,
      );
    if (this.#closing) return;
    expiry.schedule();
    this.sweeper?.start();
    // With several instances, one that dies leaves its turns to the others once their leases lapse,
    // and its requests' expiries: the timer reads the earliest again, which the others opened too.
    if (coordination.recoverEvery !== undefined) {
      this.#orphans = setInterval(() => {
        expiry.schedule();
        void this.#recovery.recoverAll().catch((error: unknown) => core.trouble("recovering turns failed", error));
      }, coordination.recoverEvery);
      this.#orphans.unref?.();
    }
  }

  #retryStart(tries: number) {
    return (error: unknown): void => {
      if (this.#closing) return;
      this.#failedStarts += 1;
      const lasting = error instanceof StoreUnavailable && error.lasting;
      // The first failure is `ready`'s to tell (an app that awaits it exits with its own words).
      if (tries > 0)
        this.core.trouble(lasting ? "starting failed for good" : "starting failed (it tries again)", error);
      if (lasting) {
        this.#failed = true;
        return;
      }
      this.#startAgain = setTimeout(
        () => {
          this.#starting = this.#start();
          this.#starting.catch(this.#retryStart(tries + 1));
        },
        Math.min(5_000, 100 * 2 ** tries),
      );
      this.#startAgain.unref?.();
    };
  }
}

/** The error a closing (or closed) runtime answers a call with: `unavailable` (503). */
export const shuttingDown = () =>
  new ProtocolError(
    "unavailable",
    "This server is shutting down; send the request again (another instance, or this one once restarted, answers it).",
  );

/** The runtime's calls that reach the store and the session locks. */
const storeCalls = [
  "createSession",
  "listSessions",
  "getSessionInfo",
  "deleteSession",
  "getSnapshot",
  "readEvents",
  "findTakenMessages",
  "sendMessage",
  "respond",
  "cancel",
] as const satisfies readonly (keyof AgentRuntime)[];

/**
 * The runtime, whose store calls a closed runtime refuses with `unavailable` (503): its
 * session locks are gone, so they could only fail, and a balancer retries a 503 elsewhere.
 */
export function refusedOnceClosed(runtime: AgentRuntime, closed: () => boolean): AgentRuntime {
  const guarded: Record<string, unknown> = { ...runtime };
  for (const name of storeCalls) {
    const call = runtime[name] as (...args: unknown[]) => Promise<unknown>;
    guarded[name] = (...args: unknown[]) => (closed() ? Promise.reject(shuttingDown()) : call(...args));
  }
  return guarded as unknown as AgentRuntime;
}

/** How long `close()` waits for running turns by default, well within a deploy's usual 30 s grace. */
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** Whether `work` settles within `ms` (for ever beyond what a timer can wait). The timer holds the process open, so a close ends. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms > MAX_TIMER_MS) return work.then(() => true);
  // No time at all: what is done by the event loop's next turn (no timer, so a test's fake clock cannot hold it).
  if (ms <= 0) return Promise.race([work.then(() => true as const), nextTurn().then(() => false as const)]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
