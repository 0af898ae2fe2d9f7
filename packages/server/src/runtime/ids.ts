import { randomBytes, randomFillSync } from "node:crypto";

// Random bytes are drawn a few kilobytes at a time: one call per id costs more than the id.
const pool = Buffer.alloc(16 * 256);
let used = pool.length;

/** A random id with a readable prefix and 128 random bits, so it cannot be guessed. */
export function randomId(prefix: string): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 16;
  return `${prefix}_${pool.toString("base64url", used - 16, used)}`;
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A tool call id for a call the runtime renames: 9 letters and digits, the one form every
 * provider takes (Mistral takes exactly that; Anthropic and Bedrock `[a-zA-Z0-9_-]{1,64}`).
 * Unique within a session, not unguessable: the caller draws again on a clash.
 */
export function toolCallId(): string {
  let id = "";
  for (const byte of randomBytes(9)) id += ALPHANUMERIC[byte % 62];
  return id;
}
