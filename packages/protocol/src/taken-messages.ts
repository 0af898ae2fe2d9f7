/**
 * The most keys one `GET /sessions/:id/messages?key=` asks about. A client asks about the
 * messages an earlier page kept as unsent, which are few; ask about more in several reads.
 */
export const MAX_TAKEN_KEYS = 20;

/** A person's message the session took under its `Idempotency-Key`, and the turn it started. */
export interface TakenMessage {
  /** The `Idempotency-Key` it was sent with. */
  key: string;
  /** The turn it started. */
  turnId: string;
}

/**
 * `GET /sessions/:id/messages?key=<key>&key=…` (1 to {@link MAX_TAKEN_KEYS} keys): which of
 * these messages the session took, however long ago. A key not listed was never taken, so a
 * message kept as unsent under it was not sent.
 */
export interface TakenMessages {
  /** The messages taken, in the order their keys were asked; each key once. */
  taken: TakenMessage[];
}
