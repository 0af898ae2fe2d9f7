import { createHash } from "node:crypto";
import type { JsonSchema } from "@hitl-kit/protocol";

/** A stable hash of a JSON Schema: the same schema hashes alike whatever its key order. */
export function schemaHash(schema: JsonSchema): string {
  return createHash("sha256").update(stableStringify(schema)).digest("base64url").slice(0, 22);
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
