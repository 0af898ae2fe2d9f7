import { createHash } from "node:crypto";
import type { JsonSchema } from "@hitl-kit/protocol";

const hashes = new WeakMap<object, string>();

/**
 * A stable hash of a JSON Schema: the same schema hashes alike whatever its key order.
 * A tool's schema is one object for the runtime's life, so its hash is kept with it.
 */
export function schemaHash(schema: JsonSchema): string {
  const key = schema as object;
  let hash = hashes.get(key);
  if (hash === undefined) {
    hash = createHash("sha256").update(stableStringify(schema)).digest("base64url").slice(0, 22);
    hashes.set(key, hash);
  }
  return hash;
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
