import { MAX_TAKEN_KEYS } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStore, type SessionAccess, type SessionStore, scriptedModel } from "../src/index.js";
import { postgresStore } from "../src/store/postgres-store.js";
import { browser, startServer } from "./harness.js";
import { postgresAvailable } from "./postgres-cluster.js";
import { throwawayDatabase } from "./postgres-database.js";

// GET /sessions/:id/messages?key=: which messages a session took under their Idempotency-Keys.

let server: ReturnType<typeof startServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const postgres = throwawayDatabase("taken");

const stores: [string, (() => SessionStore) | undefined][] = [
  ["memoryStore", memoryStore],
  ["sqliteStore", undefined], // the harness's default
  ...(postgresAvailable
    ? [
        ["postgresStore", () => postgresStore(postgres.url(), { schema: postgres.schema(), poolSize: 4 })] as [
          string,
          () => SessionStore,
        ],
      ]
    : []),
];

const replying = () => scriptedModel(() => ({ text: "Noted." }));

/** Sends `count` messages under the keys `key-0`, `key-1`, … one turn after another; answers their turns' ids. */
async function sendKeyed(started: NonNullable<typeof server>, sessionId: string, count: number): Promise<string[]> {
  const turns: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const sent = await started.send(`/sessions/${sessionId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `key-${index}` },
      body: JSON.stringify({ text: `message ${index}` }),
    });
    expect(sent.status).toBe(202);
    turns.push(((await sent.json()) as { turnId: string }).turnId);
    await started.runtime.idle();
  }
  return turns;
}

describe.each(stores)("GET /sessions/:id/messages?key= on %s", (_name, makeStore) => {
  it("names the messages the session took under the keys asked, however far before the newest page, and leaves out the others", async () => {
    server = startServer(replying(), makeStore ? { store: makeStore() } : {});
    const id = await server.session();
    const turns = await sendKeyed(server, id, 12); // more than the 8 keys a session remembers with their text

    // The newest page of two messages does not hold the first one the person sent.
    const page = (await server.call("GET", `/sessions/${id}?limit=2`)).body;
    expect(page.messages.map((message: { idempotencyKey?: string }) => message.idempotencyKey)).not.toContain("key-0");
    expect(page.before).toBeDefined();

    const answer = await server.call("GET", `/sessions/${id}/messages?key=never-sent&key=key-0&key=key-11&key=key-0`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      taken: [
        { key: "key-0", turnId: turns[0] },
        { key: "key-11", turnId: turns[11] },
      ],
    });
    expect((await server.call("GET", `/sessions/${id}/messages?key=never-sent`)).body).toEqual({ taken: [] });
    // A key is found in its own session only.
    const other = await server.session();
    expect((await server.call("GET", `/sessions/${other}/messages?key=key-0`)).body).toEqual({ taken: [] });
  });
});

describe("GET /sessions/:id/messages?key=", () => {
  it("refuses a read without keys, with too many, or with one that is no Idempotency-Key, with 400 saying so", async () => {
    server = startServer(replying());
    const id = await server.session();
    const tooMany = Array.from({ length: MAX_TAKEN_KEYS + 1 }, (_, index) => `key=k${index}`).join("&");
    const cases: [string, RegExp][] = [
      ["", /Name the messages to look for by their Idempotency-Key/],
      ["?keys=a", /Name the messages/],
      [`?${tooMany}`, new RegExp(`at most ${MAX_TAKEN_KEYS} keys at a time, not ${MAX_TAKEN_KEYS + 1}`)],
      ["?key=", /1 to 200 visible ASCII characters/],
      ["?key=ok&key=with%20space", /not "with space"/],
      [`?key=${"x".repeat(201)}`, /1 to 200 visible ASCII characters/],
    ];
    for (const [query, message] of cases) {
      const answer = await server.call("GET", `/sessions/${id}/messages${query}`);
      expect([query, answer.status, answer.body.error.code]).toEqual([query, 400, "bad_request"]);
      expect(answer.body.error.message).toMatch(message);
    }
    const most = Array.from({ length: MAX_TAKEN_KEYS }, (_, index) => `key=k${index}`).join("&");
    expect((await server.call("GET", `/sessions/${id}/messages?${most}`)).status).toBe(200);
  });

  it("answers another principal's session, and one that does not exist, 404 word for word, even for a key it took", async () => {
    server = startServer(replying());
    const alice = browser(server.handler);
    const mallory = browser(server.handler);
    const id = (await alice.call("POST", "/sessions", {})).body.sessionId;
    await alice.send(`/sessions/${id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "alice-key" },
      body: JSON.stringify({ text: "private" }),
    });
    await server.runtime.idle();
    await mallory.call("POST", "/sessions", {});

    const snooping = await mallory.call("GET", `/sessions/${id}/messages?key=alice-key`);
    const unknown = await mallory.call("GET", "/sessions/ses_doesnotexist/messages?key=alice-key");
    expect([snooping.status, unknown.status]).toEqual([404, 404]);
    expect(snooping.body.error.message.replace(id, "ID")).toBe(
      unknown.body.error.message.replace("ses_doesnotexist", "ID"),
    );
    // Bad input from a stranger is still a 404: the owner is checked first.
    expect((await mallory.call("GET", `/sessions/${id}/messages`)).status).toBe(404);
    expect((await alice.call("GET", `/sessions/${id}/messages?key=alice-key`)).body.taken).toHaveLength(1);
    await expect(server.runtime.findTakenMessages("ses_doesnotexist", ["alice-key"])).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("is a read to authorize, and still takes messages by POST", async () => {
    const seen: SessionAccess["action"][] = [];
    server = startServer(replying(), {
      http: {
        identify: () => "ada",
        authorize: ({ action }) => {
          seen.push(action);
          return true;
        },
      },
    });
    const id = await server.session();
    await server.call("GET", `/sessions/${id}/messages?key=k`);
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "hi" })).status).toBe(202);
    await server.runtime.idle();
    expect(seen).toEqual(["create", "read", "message"]);
    const put = await server.call("PUT", `/sessions/${id}/messages`, {});
    expect(put.status).toBe(405);
    expect(put.body.error.details.allow).toEqual(["POST", "GET", "HEAD"]);
  });
});
