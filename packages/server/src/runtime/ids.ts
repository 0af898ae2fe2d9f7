import { randomFillSync } from "node:crypto";

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
