import { randomBytes } from "node:crypto";

/** A random id with a readable prefix and 128 random bits, so it cannot be guessed. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}
