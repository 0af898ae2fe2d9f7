import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeEvent, emptySnapshot, reduceSession } from "@hitl-kit/protocol";
import { describe, expect, it } from "vitest";
import { checkOneResultPerCall } from "../../packages/server/test/harness.js";

const folder = join(import.meta.dirname, "../fixtures");
const load = (name: string) =>
  (JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as unknown[]).map((event) =>
    decodeEvent(JSON.stringify(event)),
  );
const fold = (name: string) => load(name).reduce(reduceSession, emptySnapshot(""));

describe("the recorded fixtures", () => {
  it.each(readdirSync(folder).map((file) => file.replace(/\.json$/, "")))(
    "%s is a valid, gapless event log",
    (name) => {
      const events = load(name);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(new Set(events.map((event) => event.sessionId)).size).toBe(1);
      const problems = checkOneResultPerCall(events);
      expect(problems.every((problem) => problem.endsWith("has 0 results"))).toBe(true);
      if (fold(name).status === "idle") expect(problems).toEqual([]);
    },
  );

  it("holds each state its name promises", () => {
    expect(fold("streaming")).toMatchObject({ status: "idle", pending: [] });
    expect(fold("parked-picker")).toMatchObject({ status: "waiting", pending: [{ toolName: "pick_template" }] });
    expect(fold("approval-pending").pending).toMatchObject([{ kind: "approval", toolName: "refund_charge" }]);
    expect(fold("several-parked").pending).toHaveLength(3);
    expect(fold("partly-answered")).toMatchObject({
      pending: { length: 2 },
      resolved: [{ resolution: { action: "accept" } }],
    });
    expect(fold("answered-resumed")).toMatchObject({
      status: "idle",
      resolved: [{ resolution: { value: { templateId: "calm" } } }],
    });
    expect(fold("declined").resolved).toMatchObject([
      { resolution: { action: "decline", reason: "Check with finance first." } },
    ]);
    expect(fold("expired").resolved).toMatchObject([{ resolution: { action: "expire" } }]);
  });
});

/**
 * An event log with its random parts named by order of appearance (ids) or blanked (times,
 * message keys), and each run of deltas to one message joined into one without seqs (how
 * the runtime batches a stream's deltas depends on timing), so two recordings of one
 * scenario compare equal when the runtime did the same.
 */
function normalized(events: readonly Record<string, unknown>[]): unknown {
  const joined: Record<string, unknown>[] = [];
  for (const { seq: _seq, ...event } of events) {
    const last = joined.at(-1);
    const delta = event.type === "text.delta" || event.type === "reasoning.delta";
    if (delta && last && last.type === event.type && last.messageId === event.messageId) {
      joined[joined.length - 1] = { ...last, delta: `${last.delta}${event.delta}` };
    } else joined.push(event);
  }
  const names = new Map<string, string>();
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([field, item]) => [field, walk(item, field)]));
    }
    if (typeof value !== "string") return value;
    if (key === "at" || key === "expiresAt") return "<time>";
    if (key === "idempotencyKey") return "<key>";
    if (/^(ses|turn|msg|req|call)_[\w-]{10,}$/.test(value)) {
      if (!names.has(value)) names.set(value, `${value.split("_")[0]}#${names.size + 1}`);
      return names.get(value);
    }
    return value;
  };
  return walk(joined);
}

describe("npm run record-fixtures", () => {
  it("records what the fixtures hold: they are the current runtime's, not an older one's", async () => {
    const { recordFixtures } = await import("./record-fixtures.js");
    const recorded = await recordFixtures();
    expect(Object.keys(recorded).sort()).toEqual(readdirSync(folder).map((file) => file.replace(/\.json$/, "")));
    for (const [name, events] of Object.entries(recorded)) {
      const checkedIn = JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as Record<string, unknown>[];
      expect(
        normalized(events as unknown as Record<string, unknown>[]),
        `${name}.json is stale: run npm run record-fixtures`,
      ).toEqual(normalized(checkedIn));
    }
  }, 30_000);
});
