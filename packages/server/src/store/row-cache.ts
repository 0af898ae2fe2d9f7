import type { StateRow } from "./sqlite-statements.js";

/** Rows by session id, the least recently used dropped first past `limit`. */
export class RowCache {
  readonly #rows = new Map<string, StateRow>();
  constructor(private readonly limit: number) {}
  get(sessionId: string) {
    const row = this.#rows.get(sessionId);
    if (row) {
      this.#rows.delete(sessionId);
      this.#rows.set(sessionId, row);
    }
    return row;
  }
  set(sessionId: string, row: StateRow) {
    this.#rows.delete(sessionId);
    this.#rows.set(sessionId, row);
    if (this.#rows.size > this.limit) this.#rows.delete(this.#rows.keys().next().value as string);
  }
  delete(sessionId: string) {
    this.#rows.delete(sessionId);
  }
}
