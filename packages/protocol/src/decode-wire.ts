import type { ErrorBody } from "./error-body.js";
import { ProtocolError } from "./errors.js";
import type { EventOf, ProtocolEvent } from "./events.js";
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
  throw new ProtocolError("bad_request", `Not ${what} of the hitl-kit protocol: ${summary}`, result.issues);
}

/**
 * Decodes one whole event given as JSON (as the store and `readEvents` hold it, with its
 * `seq`, `type` and `sessionId`) into a validated event.
 * @throws {ProtocolError} `bad_request` when the data is not JSON or not an event of the protocol
 */
export function decodeEvent(data: string): ProtocolEvent {
  return checkEvent(parseData(data));
}

/** One SSE frame as a parser hands it over: its `id:`, `event:` and `data:` fields. */
export interface EventFrame {
  /** The frame's `id:` field: the event's seq. */
  id?: string | undefined;
  /** The frame's `event:` field: the event's type. */
  event?: string | undefined;
  /** The frame's `data:` field(s), joined with line breaks. */
  data: string;
}

/**
 * Reads one stream's SSE frames (written by `eventFrameEncoder`) back into whole, validated
 * events: the seq from `id:`, the type from `event:`, the session it is given, and a delta's
 * message from the message the stream is in. A frame whose data is a whole event (as
 * protocol v1 wrote them) is read as it is. Make one per stream.
 * @throws {ProtocolError} `bad_request` when a frame is not an event of the protocol
 * @example
 * const decode = eventFrameDecoder(sessionId);
 * const parser = createParser({ onEvent: (frame) => apply(decode(frame)) });
 */
export function eventFrameDecoder(sessionId: string): (frame: EventFrame) => ProtocolEvent {
  let message: string | undefined;
  return ({ id, event: type, data }) => {
    const json = parseData(data);
    if (!("type" in json)) {
      if (type === undefined || id === undefined || !/^\d{1,15}$/.test(id)) {
        throw new ProtocolError("bad_request", "An event frame needs an `event:` type and a numeric `id:` seq.");
      }
      json.seq = Number(id);
      json.type = type;
      json.sessionId = sessionId;
      if (type === "text.delta" || type === "reasoning.delta") {
        if (!("messageId" in json)) {
          if (message === undefined) throw new ProtocolError("bad_request", "A delta came before any message.");
          json.messageId = message;
        }
        // Most frames of a stream are deltas: checked here with the rules of their JSON
        // Schema (seq, type and sessionId were set above), not by the generic validator.
        if (isDelta(json)) {
          message = json.messageId;
          return json;
        }
      }
    }
    const decoded = checkEvent(json);
    if ("messageId" in decoded) message = decoded.messageId;
    return decoded;
  };
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

function parseData(data: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ProtocolError("bad_request", `An event's data is not JSON: ${data.slice(0, 80)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ProtocolError("bad_request", `An event's data is not a JSON object: ${data.slice(0, 80)}`);
  }
  return json as Record<string, unknown>;
}

/** A compact delta frame's payload is valid: what `text.delta`'s and `reasoning.delta`'s schemas ask of it. */
function isDelta(json: Record<string, unknown>): json is EventOf<"text.delta" | "reasoning.delta"> {
  return (
    typeof json.messageId === "string" &&
    typeof json.delta === "string" &&
    (!("at" in json) || typeof json.at === "string")
  );
}

function checkEvent(json: Record<string, unknown>): ProtocolEvent {
  const { type } = json;
  const schema = typeof type === "string" ? eventJsonSchemas[type] : undefined;
  if (!schema)
    throw new ProtocolError("bad_request", `Not an event of the protocol: unknown type ${JSON.stringify(type)}.`);
  return checkWire<ProtocolEvent>(schema, json, "an event");
}
