/**
 * Runs critical sections one at a time per session, in arrival order. Entries exist only
 * while a section is queued or running.
 */
export class SessionLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `section` after every section queued before it for this session. */
  run<T>(sessionId: string, section: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(sessionId) ?? Promise.resolve();
    const result = previous.then(section, section);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId);
    });
    return result;
  }
}
