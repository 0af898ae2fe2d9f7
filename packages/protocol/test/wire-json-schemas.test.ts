import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildWireJsonSchemas } from "../scripts/wire-json-schemas.js";
import { ProtocolEvent, RespondBody, SendMessageBody, SessionSnapshot } from "../scripts/wire-zod-schemas.js";
import { decodeEvent, ProtocolError, parseErrorBody, parseSnapshot } from "../src/index.js";
import { parseCommandBody } from "../src/internal.js";
import {
  commandJsonSchemas,
  errorBodyJsonSchema,
  eventJsonSchemas,
  snapshotJsonSchema,
} from "../src/wire-json-schemas.generated.js";
import { everyEventType } from "./fixtures.js";

const recorded = readdirSync(join(import.meta.dirname, "../../../storybook/fixtures")).flatMap(
  (file) =>
    JSON.parse(readFileSync(join(import.meta.dirname, "../../../storybook/fixtures", file), "utf8")) as unknown[],
);

const decodes = (value: unknown) => {
  try {
    decodeEvent(JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
};

/** Each event with one field removed, and with one field of the wrong type. */
function mutations(event: Record<string, unknown>): unknown[] {
  return Object.keys(event).flatMap((key) => {
    const { [key]: _removed, ...without } = event;
    const wrong = typeof event[key] === "string" ? 7 : "seven";
    return [without, { ...event, [key]: wrong }];
  });
}

describe("the generated wire JSON Schemas", () => {
  it("are up to date with the zod/mini wire schemas (npm run generate:wire-schemas)", () => {
    const fresh = buildWireJsonSchemas();
    expect(eventJsonSchemas).toEqual(fresh.events);
    expect(snapshotJsonSchema).toEqual(fresh.snapshot);
    expect(errorBodyJsonSchema).toEqual(fresh.errorBody);
    expect(commandJsonSchemas).toEqual(fresh.commands);
  });

  it("decode events exactly as the zod schemas do, for recorded events and their mutations", () => {
    const cases = [...everyEventType, ...recorded].flatMap((event) => [
      event,
      ...mutations(event as Record<string, unknown>),
    ]);
    expect(cases.length).toBeGreaterThan(1000);
    const disagreements = cases.filter((value) => decodes(value) !== ProtocolEvent.safeParse(value).success);
    expect(disagreements).toEqual([]);
  });

  it("parse snapshots and error bodies as the zod schemas do", () => {
    const snapshot = { sessionId: "s", status: "waiting", messages: [], pending: [], lastSeq: 3 };
    expect(parseSnapshot(snapshot)).toEqual(SessionSnapshot.parse(snapshot));
    expect(() => parseSnapshot({ ...snapshot, status: "asleep" })).toThrow(
      /Not a session snapshot of the hitl-kit protocol/,
    );
    expect(parseErrorBody({ error: { code: "not_found", message: "No." } })).toEqual({
      error: { code: "not_found", message: "No." },
    });
    expect(parseErrorBody({ error: "No." })).toBeUndefined();
  });
});

describe("command bodies", () => {
  const refused = (command: "message" | "responses", value: unknown) => {
    try {
      parseCommandBody(command, value);
      return false;
    } catch (error) {
      return error instanceof ProtocolError && error.code === "bad_request";
    }
  };

  it("are checked as the zod schemas check them", () => {
    const messages = [{ text: "hi" }, { text: "  hi  " }, { text: "" }, { text: "   " }, { text: 7 }, {}, []];
    for (const body of messages) expect(refused("message", body)).toBe(!SendMessageBody.safeParse(body).success);
    const response = { requestId: "req_1", action: "accept", value: { a: 1 } };
    const bodies = [
      { responses: [response] },
      { responses: [] },
      { responses: [{ ...response, action: "approve" }] },
      { responses: [{ ...response, requestId: "" }] },
      { responses: [{ ...response, reason: "x".repeat(10_001) }] },
      { responses: Array.from({ length: 101 }, (_, i) => ({ ...response, requestId: `r${i}` })) },
      { response },
    ];
    for (const body of bodies) expect(refused("responses", body)).toBe(!RespondBody.safeParse(body).success);
  });

  it("trims a message's text", () => {
    expect(parseCommandBody("message", { text: "  hi \n" })).toEqual({ text: "hi" });
  });
});
