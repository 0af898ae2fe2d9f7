/**
 * Which sessions' turns wait on the person alone: every tool call the turn runs waits for
 * the answer to a question it asked (`ctx.ask`). `AgentRuntime.idle()` counts them as it
 * counts parked turns: nothing more happens there until the person answers.
 */
export class PersonWaits {
  readonly #running = new Map<string, number>();
  readonly #asking = new Map<string, number>();
  /** Of those, the questions of tools run again after a restart (`rerunAfterRestart`). */
  readonly #askingRerunnable = new Map<string, number>();
  #wake: (() => void)[] = [];

  /** One more tool call runs in the session (`1`), or one ended (`-1`). */
  running(sessionId: string, delta: 1 | -1): void {
    this.#count(this.#running, sessionId, delta);
  }

  /**
   * One more question of a running tool waits for the person (`1`), or one was settled
   * (`-1`); `rerunnable` for a tool implemented with `rerunAfterRestart`.
   */
  asking(sessionId: string, delta: 1 | -1, rerunnable = false): void {
    if (rerunnable) this.#count(this.#askingRerunnable, sessionId, delta);
    this.#count(this.#asking, sessionId, delta);
  }

  /** Whether every tool call the session's turn runs waits for the person's answer. */
  waiting(sessionId: string): boolean {
    const running = this.#running.get(sessionId) ?? 0;
    return running > 0 && (this.#asking.get(sessionId) ?? 0) >= running;
  }

  /**
   * Whether every tool call the session's turn runs waits for an answer to a question that
   * outlives a restart (`rerunAfterRestart`): a closing runtime loses nothing by leaving it.
   */
  waitingAcrossRestarts(sessionId: string): boolean {
    const running = this.#running.get(sessionId) ?? 0;
    return running > 0 && (this.#askingRerunnable.get(sessionId) ?? 0) >= running;
  }

  /** Resolves at the next change of any session's counts. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#wake.push(resolve));
  }

  #count(counts: Map<string, number>, sessionId: string, delta: 1 | -1): void {
    const count = (counts.get(sessionId) ?? 0) + delta;
    if (count > 0) counts.set(sessionId, count);
    else counts.delete(sessionId);
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}
