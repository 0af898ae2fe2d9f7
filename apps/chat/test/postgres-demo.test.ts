import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Served, scriptedModel, serve } from "@hitl-kit/server";
import { describe, expect, it, vi } from "vitest";
import { postgresAvailable } from "../../../packages/server/test/postgres-cluster.js";
import { throwawayDatabase } from "../../../packages/server/test/postgres-database.js";
import { type ChatApp, createChatApp } from "../server/chat-app.js";
import { readChatConfig, storeLabel } from "../server/chat-config.js";
import { demoScript } from "../server/demo-script.js";

const postgres = throwawayDatabase("demo");

describe("the demo on Postgres (DATABASE_URL)", () => {
  it("refuses a DATABASE_URL that is not a PostgreSQL URL, naming the variable", () => {
    expect(() => readChatConfig({ DATABASE_URL: "mysql://db/app" })).toThrow(/DATABASE_URL must be a PostgreSQL URL/);
    expect(readChatConfig({ DATABASE_URL: "postgres://u@h/db" }).databaseUrl).toBe("postgres://u@h/db");
    expect(readChatConfig({}).databaseUrl).toBeUndefined();
  });

  it("says at start where it keeps the sessions: the database, without its password, or the data folder", () => {
    expect(storeLabel(readChatConfig({ DATABASE_URL: "postgres://app:secret@db.internal:5433/chat" }))).toBe(
      "PostgreSQL at db.internal:5433/chat",
    );
    expect(storeLabel(readChatConfig({ HITL_DATA_DIR: "/srv/chat-data" }))).toBe("/srv/chat-data");
  });

  it("stops at start with one line naming DATABASE_URL when it cannot reach the database, before it says it runs", async () => {
    // A port nothing listens on: a database that is down.
    const closed = await serve(async () => new Response(), { port: 0 });
    const port = new URL(closed.url).port;
    await closed.close();
    const demo = spawnSync(
      process.execPath,
      [
        "--conditions=@hitl-kit/source",
        "--import",
        "tsx",
        fileURLToPath(new URL("../server/main.ts", import.meta.url)),
      ],
      {
        env: { ...process.env, DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/demo`, PORT: "0" },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(demo.status).toBe(1);
    expect(demo.stdout).not.toMatch(/is running at/);
    expect(demo.stderr.trim()).toMatch(
      /^hitl-kit chat cannot start: could not open the database of DATABASE_URL: .*ECONNREFUSED/,
    );
  }, 30_000); // the child's own limit: starting tsx and the demo takes seconds on a loaded runner

  it.skipIf(!postgresAvailable)(
    "serves two demo servers on one database: a chat started on one is answered on the other",
    async () => {
      const apps: ChatApp[] = [];
      const served: Served[] = [];
      try {
        for (let index = 0; index < 2; index += 1) {
          const app = createChatApp({
            ...readChatConfig({ DATABASE_URL: postgres.url() }),
            model: { model: scriptedModel(demoScript), label: "scripted" },
            logger: { warn: () => {}, error: () => {} },
          });
          apps.push(app);
          served.push(await serve(app.handler, { port: 0 }));
        }
        const [one, two] = served.map((server) => server.url);
        let cookie = "";
        const call = async (base: string, method: string, path: string, body?: unknown) => {
          const response = await fetch(`${base}/api/agent${path}`, {
            method,
            headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const set = response.headers.getSetCookie()[0];
          if (set) cookie = set.split(";")[0]!;
          // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
          return { status: response.status, body: (await response.json()) as any };
        };
        const { sessionId } = (await call(one!, "POST", "/sessions", {})).body;
        expect((await call(one!, "POST", `/sessions/${sessionId}/messages`, { text: "refund 1500" })).status).toBe(202);
        let pending: { requestId: string }[] = [];
        await vi.waitFor(
          async () => {
            pending = (await call(two!, "GET", `/sessions/${sessionId}`)).body.pending;
            expect(pending).toHaveLength(1);
          },
          { timeout: 10_000, interval: 50 },
        );
        const answered = await call(two!, "POST", `/sessions/${sessionId}/responses`, {
          responses: [{ requestId: pending[0]!.requestId, action: "accept" }],
        });
        expect(answered.status).toBe(202);
        await vi.waitFor(
          async () => {
            const snapshot = (await call(one!, "GET", `/sessions/${sessionId}`)).body;
            expect(snapshot.status).toBe("idle");
            expect(JSON.stringify(snapshot.messages.at(-1))).toContain("Refunded 1500.00");
          },
          { timeout: 10_000, interval: 50 },
        );
      } finally {
        for (const server of served) await server.close();
        for (const app of apps) await app.close();
      }
    },
    30_000,
  );
});
