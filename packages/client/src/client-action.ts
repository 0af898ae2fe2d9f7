import type { ProtocolEvent, SessionSnapshot } from "@hitl-kit/protocol";
import type { ClientError, ConnectionState } from "./client-state.js";
import type { UnsentMessage } from "./outbox-keeper.js";
import type { WireResolution } from "./reduce-requests.js";
import type { RequestError, SentAnswer } from "./request-state.js";

/**
 * Everything that changes a client's state: an event of the session's log, or something
 * the client itself did or learned (a snapshot, a command in flight or refused, the
 * stream's connection changing).
 */
export type ClientAction =
  /** One event from the stream; one at or below `lastSeq` changes nothing. */
  | { type: "event"; event: ProtocolEvent }
  /** A snapshot from `GET /sessions/:id`; one older than what is applied changes nothing. */
  | { type: "snapshot.loaded"; snapshot: SessionSnapshot }
  /** An earlier page of messages (`GET /sessions/:id?before=`), to put before those shown. */
  | { type: "earlier.loaded"; page: SessionSnapshot }
  /** A new session was created. */
  | { type: "session.created"; sessionId: string }
  | { type: "connection.changed"; connection: ConnectionState }
  /** Loading the session's snapshot failed in a way trying again may fix (no answer, `5xx`, `429`): it is tried again after a backoff. */
  | { type: "connection.retrying"; error: Omit<ClientError, "source"> }
  /** The stream or the session setup failed in a way retrying cannot fix; the stream is closed. */
  | { type: "connection.failed"; error: Omit<ClientError, "source"> }
  /** `send()` is posting a message with this `Idempotency-Key` (again, for a key that failed before). */
  | { type: "message.sending"; key: string; text: string }
  /** The server accepted the message sent with `key` and started `turnId`; `shown` when the stream has shown that turn already. */
  | { type: "message.accepted"; key: string; turnId: string; shown?: boolean }
  /** The message sent with `key` was refused, or every attempt failed. */
  | { type: "message.failed"; key: string; error: Omit<ClientError, "source"> }
  /** The person gave up a failed message: it leaves the outbox. */
  | { type: "message.discarded"; key: string }
  /**
   * Messages an earlier page (or client) of this session left unsent, from its stored
   * outbox: each not in the history comes back `failed`, to send again or discard; with
   * `checking`, it comes back `checking`, while the client asks the server whether it took it.
   */
  | { type: "outbox.restored"; messages: readonly UnsentMessage[]; checking?: boolean }
  /**
   * The server said which of these restored messages (`checking`) it took: those leave the
   * outbox, the others are `failed`. With `taken` empty (the server could not say), all are.
   */
  | { type: "outbox.checked"; messages: readonly UnsentMessage[]; taken: readonly string[] }
  /** `cancelTurn()` is asking the server to stop the turn. */
  | { type: "stop.requested" }
  /** `cancelTurn()` or `deleteSession()` was refused. */
  | { type: "command.failed"; error: ClientError }
  /** An answer to an open request is in flight: `sent` is the answer. */
  | { type: "request.submitting"; requestId: string; sent: SentAnswer }
  /**
   * An answer was refused (by the client's own check, the server, or the network); the request
   * is open again, or settled as `won` says when another answer was taken first.
   */
  | {
      type: "request.failed";
      requestId: string;
      error: RequestError;
      won?: WireResolution | false;
    };
