import type { EventInput, ProtocolEvent } from "@hitl-kit/protocol";
import type { WriteBatch } from "../store/records.js";
import { LeaseLost } from "./coordination.js";
import { failureLine } from "./logged-error.js";
import type { RuntimeCore } from "./runtime-core.js";

/**
 * Writes the batches of the turns this instance drives: only while it holds a turn's lease
 * (else the write is refused, and a {@link LeaseLost} stops the drive), with the events a
 * drive was kicked with (`before`) ahead of its first write.
 */
export class TurnWriter {
  readonly #before = new Map<string, EventInput[]>();

  constructor(private readonly core: RuntimeCore) {}

  /** Sets the events a session's drive was kicked with: its first write carries them ahead of its own. */
  setBefore(sessionId: string, before: EventInput[]): void {
    this.#before.set(sessionId, before);
  }

  /** Whether the session's drive still carries events it was kicked with. */
  hasBefore(sessionId: string): boolean {
    return this.#before.has(sessionId);
  }

  /** Forgets the events the session's drive was kicked with (they were written, or are left for later). */
  dropBefore(sessionId: string): void {
    this.#before.delete(sessionId);
  }

  /** Commits a batch of the drive, with the events it was kicked with ahead of the first one; answers the events it appended. */
  async commit(sessionId: string, batch: WriteBatch): Promise<ProtocolEvent[]> {
    const before = this.#before.get(sessionId);
    const events = await this.fenced(
      sessionId,
      before ? { ...batch, events: [...before, ...(batch.events ?? [])] } : batch,
    );
    this.#before.delete(sessionId);
    return events;
  }

  /**
   * Writes a batch of the turn. With several instances, the store refuses it once this one
   * no longer holds the turn's lease (checked in the write itself): the driver stops then.
   */
  async fenced(sessionId: string, batch: WriteBatch): Promise<ProtocolEvent[]> {
    const { coordination } = this.core;
    const result = await this.core.commit(
      sessionId,
      coordination.shared ? { ...batch, requireLease: coordination.turns.holder } : batch,
    );
    if (!result.ok && result.reason === "lease") throw new LeaseLost(sessionId);
    if (!result.ok) throw new Error(`Write to session ${sessionId} refused (${result.reason}).`);
    return result.events;
  }

  /** A critical section of the turn: it runs only while this instance holds the turn's lease. */
  section<T>(sessionId: string, section: () => Promise<T>): Promise<T> {
    const { lock, turns, shared } = this.core.coordination;
    return lock.run(sessionId, async () => {
      if (shared && !(await turns.holds(sessionId))) throw new LeaseLost(sessionId);
      return section();
    });
  }

  /** Writes the events the drive was kicked with when it wrote nothing itself. */
  async writeBefore(sessionId: string): Promise<void> {
    if (!this.#before.has(sessionId)) return;
    await this.section(sessionId, () => this.commit(sessionId, {})).catch((error: unknown) => {
      // Left for later: the message is still open in the log, and recovery (or the turn's next driver) closes it.
      this.#before.delete(sessionId);
      if (!(error instanceof LeaseLost)) {
        this.core.logger.warn(
          ...failureLine(`hitl-kit: session ${sessionId}: could not close a cut-off message`, error),
        );
      }
    });
  }
}
