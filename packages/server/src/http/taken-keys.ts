import { isIdempotencyKey, MAX_TAKEN_KEYS, ProtocolError } from "@hitl-kit/protocol";

/**
 * Reads the `?key=` of `GET /sessions/:id/messages`: 1 to {@link MAX_TAKEN_KEYS}
 * `Idempotency-Key`s, each given as its own `key` parameter.
 * @throws {ProtocolError} `bad_request` saying what is wrong
 */
export function readTakenKeys(params: URLSearchParams): string[] {
  const keys = params.getAll("key");
  if (keys.length === 0) {
    throw new ProtocolError(
      "bad_request",
      "Name the messages to look for by their Idempotency-Key: GET /sessions/:id/messages?key=<key>&key=<key> (the history itself is GET /sessions/:id).",
    );
  }
  if (keys.length > MAX_TAKEN_KEYS) {
    throw new ProtocolError(
      "bad_request",
      `Ask about at most ${MAX_TAKEN_KEYS} keys at a time, not ${keys.length}; ask about the rest in another request.`,
    );
  }
  const bad = keys.find((key) => !isIdempotencyKey(key));
  if (bad !== undefined) {
    throw new ProtocolError(
      "bad_request",
      `?key= must be an Idempotency-Key as a message was sent with (1 to 200 visible ASCII characters), not ${JSON.stringify(bad.slice(0, 40))}${bad.length > 40 ? "…" : ""}.`,
    );
  }
  return keys;
}
