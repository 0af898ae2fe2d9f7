import type { ErrorBody } from "./error-body.js";
import { ProtocolError } from "./errors.js";
import type { ProtocolEvent } from "./events.js";
import type { JsonSchema } from "./schema.js";
import type { SessionSnapshot } from "./snapshot.js";
import { validateJsonSchema } from "./validate-json-schema.js";
import { errorBodyJsonSchema, eventJsonSchemas, snapshotJsonSchema } from "./wire-json-schemas.generated.js";

// The decoders check against JSON Schemas generated from the zod/mini wire schemas
// (scripts/wire-zod-schemas.ts), with the validator that checks answers: the same rules,
// and no zod in a browser bundle or a server.

/** Checks a value against a wire JSON Schema. @throws {ProtocolError} `bad_request` naming each issue */
export function checkWire<T>(schema: JsonSchema, value: unknown, what: string): T {
  const result = validateJsonSchema(schema, value);
  if (result.ok) return value as T;
  const summary = result.issues.map((issue) => `${issue.path.join(".") || what}: ${issue.message}`).join("; ");
  throw new ProtocolError("bad_request", `Not ${what} of protocol v1: ${summary}`, result.issues);
}

/**
 * Decodes the `data:` of one SSE frame into a validated event.
 * @throws {ProtocolError} `bad_request` when the data is not JSON or not an event of protocol v1
 */
export function decodeEvent(data: string): ProtocolEvent {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ProtocolError("bad_request", `An event's data is not JSON: ${data.slice(0, 80)}`);
  }
  const type = (json as { type?: unknown } | null)?.type;
  const schema = typeof type === "string" ? eventJsonSchemas[type] : undefined;
  if (!schema)
    throw new ProtocolError("bad_request", `Not an event of protocol v1: unknown type ${JSON.stringify(type)}.`);
  return checkWire<ProtocolEvent>(schema, json, "an event");
}

/**
 * Validates the body of `GET /sessions/:id`.
 * @throws {ProtocolError} `bad_request` naming each problem
 */
export function parseSnapshot(value: unknown): SessionSnapshot {
  const snapshot = checkWire<SessionSnapshot>(snapshotJsonSchema, value, "a session snapshot");
  return snapshot.resolved ? snapshot : { ...snapshot, resolved: [] };
}

/** The error body of a response, or `undefined` when the body is not one. */
export function parseErrorBody(value: unknown): ErrorBody | undefined {
  return validateJsonSchema(errorBodyJsonSchema, value).ok ? (value as ErrorBody) : undefined;
}
