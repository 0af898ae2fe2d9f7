import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { defineTool, ProtocolError } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRuntime,
  createFetchHandler,
  implement,
  memoryStore,
  type SessionAccess,
  scriptedModel,
  toNodeHandler,
} from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { browser, quiet, readSse, startServer, tempDir } from "./harness.js";

let server: ReturnType<typeof startServer>;
afterEach(() => server?.close());

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };
const parkingModel = () => scriptedModel(() => ({ text: "Pick.", toolCalls: [pick] }));

describe("the anonymous identity (no identify hook)", () => {
  it("gives a browser an HttpOnly, SameSite=Lax cookie when it creates its first session", async () => {
    server = startServer(scriptedModel([]));
    const created = await server.call("POST", "/sessions", {});
    const [cookie] = created.headers.getSetCookie();
    expect(cookie).toMatch(/^hitl-id=[A-Za-z0-9_-]{22}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);

    // Over HTTPS it is Secure, and its __Host- name means no other host (a sibling subdomain) can set it.
    const https = browser(server.handler, "https://chat.example/api/agent");
    const secure = await https.call("POST", "/sessions", {});
    expect(secure.headers.getSetCookie()[0]).toMatch(
      /^__Host-hitl-id=[A-Za-z0-9_-]{22}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it("keeps two browsers apart: neither can list, read, stream, look up a message, message, answer, cancel or delete the other's session", async () => {
    server = startServer(parkingModel());
    const alice = browser(server.handler);
    const mallory = browser(server.handler);
    const id = (await alice.call("POST", "/sessions", {})).body.sessionId;
    await alice.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const [request] = (await alice.call("GET", `/sessions/${id}`)).body.pending;
    await mallory.call("POST", "/sessions", {}); // mallory has an identity of her own
    const before = await server.events(id);

    expect(
      (await mallory.call("GET", "/sessions")).body.sessions.map((s: { sessionId: string }) => s.sessionId),
    ).not.toContain(id);
    const attempts = [
      await mallory.call("GET", `/sessions/${id}`),
      await mallory.call("GET", `/sessions/${id}/events?after=0`),
      await mallory.call("GET", `/sessions/${id}/messages?key=k`),
      await mallory.call("POST", `/sessions/${id}/messages`, { text: "hijack" }),
      await mallory.call("POST", `/sessions/${id}/responses`, {
        responses: [{ requestId: request.requestId, action: "accept", value: { templateId: "a" } }],
      }),
      await mallory.call("POST", `/sessions/${id}/cancel`, {}),
      await mallory.call("DELETE", `/sessions/${id}`),
    ];
    const unknown = await mallory.call("GET", "/sessions/ses_doesnotexist");
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      // Word for word what a session that does not exist answers, apart from the id.
      expect(attempt.body.error.code).toBe(unknown.body.error.code);
      expect(attempt.body.error.message.replace(id, "ID")).toBe(
        unknown.body.error.message.replace("ses_doesnotexist", "ID"),
      );
    }
    expect(await server.events(id)).toEqual(before);
    expect((await alice.call("GET", `/sessions/${id}`)).body.pending).toHaveLength(1);
  });

  it("treats a browser without the cookie, or with a forged one, as someone who owns nothing", async () => {
    server = startServer(scriptedModel([]));
    const id = await server.session();
    for (const cookie of [undefined, "hitl-id=not-a-token", "hitl-id=AAAAAAAAAAAAAAAAAAAAAA"]) {
      const headers: Record<string, string> = cookie ? { cookie } : {};
      const stranger = browser(server.handler);
      expect((await stranger.call("GET", "/sessions", undefined, headers)).body).toEqual({ sessions: [] });
      expect((await stranger.call("GET", `/sessions/${id}`, undefined, headers)).status).toBe(404);
    }
  });

  it("needs no server state: another handler on the same store, as after a restart, knows the browser", async () => {
    const dir = tempDir();
    const path = `${dir.path}/hitl.sqlite`;
    const open = () => {
      const store = sqliteStore(path);
      const runtime = createAgentRuntime({ model: scriptedModel([]), store, logger: quiet });
      return { store, runtime, handler: createFetchHandler(runtime) };
    };
    const first = open();
    const person = browser(first.handler);
    const id = (await person.call("POST", "/sessions", {})).body.sessionId;
    await first.runtime.close();
    await first.store.close();

    const second = open();
    const again = await second.handler(
      new Request(`http://127.0.0.1/api/agent/sessions/${id}`, { headers: { cookie: person.cookie! } }),
    );
    expect(again.status).toBe(200);
    await second.runtime.close();
    await second.store.close();
    dir.cleanup();
  });

  it("shows sessions stored without an owner (from before owners existed) to no one", async () => {
    server = startServer(scriptedModel([]));
    const { sessionId } = await server.runtime.createSession(); // no owner, as after the migration
    await server.session();
    expect((await server.call("GET", `/sessions/${sessionId}`)).status).toBe(404);
    expect(
      (await server.call("GET", "/sessions")).body.sessions.map((s: { sessionId: string }) => s.sessionId),
    ).not.toContain(sessionId);
  });
});

describe("the host's identify hook", () => {
  const byHeader = (request: Request) => request.headers.get("x-user") ?? undefined;

  it("answers 401 with a JSON error when it names no one, and changes nothing", async () => {
    server = startServer(scriptedModel([]), { http: { identify: byHeader } });
    for (const [method, path, body] of [
      ["GET", "/sessions", undefined],
      ["POST", "/sessions", {}],
    ] as const) {
      const refused = await server.call(method, path, body);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toEqual({ code: "unauthorized", message: expect.stringMatching(/Sign in/) });
    }
    expect(await server.runtime.listSessions()).toEqual([]);
  });

  it("answers 503, which the client sends again, when identify says its backend is out of reach", async () => {
    const logged: unknown[][] = [];
    const identify = () => {
      throw new ProtocolError("unavailable", "The login service is out of reach; send the request again.");
    };
    server = startServer(scriptedModel([]), {
      http: { identify, logger: { warn: (...line) => logged.push(line), error: (...line) => logged.push(line) } },
    });
    const refused = await server.call("GET", "/sessions");
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({
      code: "unavailable",
      message: "The login service is out of reach; send the request again.",
    });
    expect(logged).toEqual([]);
  });

  it("refuses, as the server's failure and saying why, a principal that is not a string", async () => {
    const logged: unknown[][] = [];
    server = startServer(scriptedModel([]), {
      logger: { ...quiet, error: (...args: unknown[]) => logged.push(args) },
      http: {
        identify: ((request: Request) => (request.headers.get("x-user") === "42" ? 42 : { id: "ada" })) as never,
      },
    });
    for (const user of ["42", "ada"]) {
      const refused = await server.call("POST", "/sessions", {}, { "x-user": user });
      expect(refused.status).toBe(500);
      expect(JSON.stringify(refused.body)).not.toMatch(/identify/);
    }
    expect(logged.map((args) => String(args.at(-1)))).toEqual([
      expect.stringMatching(/identify returned a number \(42\): it must return the principal as a string/),
      expect.stringMatching(/identify returned an object: it must return the principal as a string/),
    ]);
    expect(await server.runtime.listSessions()).toEqual([]);
  });

  it("is given what the server passed beside the request: Node's request, where Express keeps its login", async () => {
    const seen: unknown[] = [];
    const runtime = createAgentRuntime({ model: scriptedModel([]), store: memoryStore(), logger: quiet });
    const handler = createFetchHandler(runtime, {
      identify: (_request, platform) => {
        seen.push(platform);
        return (platform as { incoming: { user?: { id: string } } }).incoming.user?.id;
      },
    });
    const node = toNodeHandler(handler);
    const http = createServer((request, response) => {
      // What a login middleware (passport) leaves on Express's `req`, which is Node's request.
      if (request.headers["x-session"] === "s3cret") Object.assign(request, { user: { id: "ada" } });
      void node(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const create = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/api/agent/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: "{}",
        });
      const created = await create({ "x-session": "s3cret" });
      expect(created.status).toBe(201);
      const { sessionId } = (await created.json()) as { sessionId: string };
      expect((await runtime.getSessionInfo(sessionId))?.owner).toBe("ada");
      expect((await create({})).status).toBe(401);
      expect(seen[0]).toMatchObject({ incoming: expect.objectContaining({ user: { id: "ada" } }) });
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await runtime.close();
    }
  });

  it("tells a server tool whose session it runs for (ctx.owner)", async () => {
    const owners: unknown[] = [];
    const whoAmI = implement(
      defineTool({ name: "who_am_i", description: "Says who asks.", inputSchema: z.object({}) }),
      (_input, ctx) => {
        owners.push(ctx.owner);
        return { ok: true };
      },
    );
    const model = scriptedModel((context) =>
      context.lastResults.length > 0 ? { text: "Done." } : { toolCalls: [{ toolName: "who_am_i", input: {} }] },
    );
    server = startServer(model, { tools: [whoAmI], http: { identify: byHeader } });
    const id = (await server.call("POST", "/sessions", {}, { "x-user": "ada" })).body.sessionId;
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" }, { "x-user": "ada" });
    await server.runtime.idle();
    const { sessionId } = await server.runtime.createSession();
    await server.runtime.sendMessage(sessionId, "go");
    await server.runtime.idle();
    expect(owners).toEqual(["ada", undefined]);
  });

  it("scopes sessions to the principal it names, and sets no cookie", async () => {
    server = startServer(scriptedModel([]), { http: { identify: byHeader } });
    const created = await server.call("POST", "/sessions", {}, { "x-user": "ada" });
    expect(created.headers.getSetCookie()).toEqual([]);
    const id = created.body.sessionId;
    expect((await server.runtime.getSessionInfo(id))?.owner).toBe("ada");
    expect((await server.call("GET", `/sessions/${id}`, undefined, { "x-user": "ada" })).status).toBe(200);
    expect((await server.call("GET", `/sessions/${id}`, undefined, { "x-user": "bob" })).status).toBe(404);
    expect((await server.call("GET", "/sessions", undefined, { "x-user": "bob" })).body.sessions).toEqual([]);
  });

  it("tells authorize who asks, what for and about which session, on every route; false is a 403, a Response is sent", async () => {
    const seen: Omit<SessionAccess, "request">[] = [];
    server = startServer(parkingModel(), {
      http: {
        identify: () => "ada",
        authorize: ({ request: _request, ...access }) => {
          seen.push(access);
          if (access.action === "delete") return false;
          if (access.action === "stream") return new Response("not today", { status: 451 });
          return true;
        },
      },
    });
    const id = await server.session();
    await server.call("GET", "/sessions");
    await server.call("GET", `/sessions/${id}`);
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    await server.call("POST", `/sessions/${id}/responses`, { responses: [{ requestId: "req_x", action: "cancel" }] });
    await server.call("POST", `/sessions/${id}/cancel`, {});
    const stream = await server.send(`/sessions/${id}/events`);
    expect([stream.status, await stream.text()]).toEqual([451, "not today"]);
    const refused = await server.call("DELETE", `/sessions/${id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(await server.runtime.getSessionInfo(id)).toBeDefined();
    expect(seen).toEqual([
      { principal: "ada", action: "create", sessionId: undefined },
      { principal: "ada", action: "list", sessionId: undefined },
      { principal: "ada", action: "read", sessionId: id },
      { principal: "ada", action: "message", sessionId: id },
      { principal: "ada", action: "respond", sessionId: id },
      { principal: "ada", action: "cancel", sessionId: id },
      { principal: "ada", action: "stream", sessionId: id },
      { principal: "ada", action: "delete", sessionId: id },
    ]);
  });
});

describe("an open event stream after sign-out", () => {
  /** Resolves when the response's body ends; reads and drops what comes before. */
  const ended = async (response: Response) => {
    const reader = response.body!.getReader();
    while (!(await reader.read()).done) {}
    return "ended";
  };
  const stillOpen = (end: Promise<string>) =>
    Promise.race([end, new Promise<string>((resolve) => setTimeout(() => resolve("open"), 150))]);

  it("ends once identify no longer names who opened it, and the reconnect gets 401", async () => {
    const signedIn = new Set(["ada"]);
    const identify = (request: Request) => {
      const user = request.headers.get("x-user") ?? "";
      return signedIn.has(user) ? user : undefined;
    };
    server = startServer(scriptedModel([]), { http: { identify, recheckStreamsMs: 20 } });
    const ada = { "x-user": "ada" };
    const id = (await server.call("POST", "/sessions", {}, ada)).body.sessionId;
    const stream = await server.send(`/sessions/${id}/events`, { headers: ada });
    const end = ended(stream);
    expect(await stillOpen(end)).toBe("open"); // several checks passed

    signedIn.delete("ada");
    expect(await end).toBe("ended");
    expect((await server.call("GET", `/sessions/${id}/events`, undefined, ada)).status).toBe(401);
  });

  it("ends once authorize refuses it, or when the check throws; never rechecks with Infinity", async () => {
    let allowed = true;
    let calls = 0;
    const identify = () => {
      calls += 1;
      if (calls > 1 && !allowed) throw new Error("the identity service is down");
      return "ada";
    };
    server = startServer(scriptedModel([]), {
      http: { identify, authorize: () => allowed, recheckStreamsMs: 20 },
    });
    const id = await server.session();
    const refused = ended(await server.send(`/sessions/${id}/events`));
    allowed = false;
    expect(await refused).toBe("ended");

    allowed = true;
    const failing = ended(await server.send(`/sessions/${id}/events`));
    await new Promise((resolve) => setTimeout(resolve, 60));
    allowed = false; // identify now throws
    expect(await failing).toBe("ended");

    allowed = true;
    const never = createFetchHandler(server.runtime, { identify, recheckStreamsMs: Number.POSITIVE_INFINITY });
    const response = await never(new Request(`http://127.0.0.1/api/agent/sessions/${id}/events`));
    calls = 0;
    expect(await stillOpen(ended(response))).toBe("open");
    expect(calls).toBe(0);
    await response.body?.cancel().catch(() => {});
    expect(() => createFetchHandler(server.runtime, { recheckStreamsMs: 0 })).toThrow(/recheckStreamsMs/);
  });
});

describe("session lifecycle over HTTP", () => {
  it("answers 404 for a session deleted through another handler, though this one served it a moment ago", async () => {
    server = startServer(scriptedModel([]), { http: { identify: () => "ada" } });
    const other = browser(createFetchHandler(server.runtime, { identify: () => "ada", rateLimit: false }));
    const id = (await server.call("POST", "/sessions", {})).body.sessionId;
    expect((await server.call("GET", `/sessions/${id}`)).status).toBe(200);
    expect((await other.call("DELETE", `/sessions/${id}`)).status).toBe(204);
    const gone = await server.call("GET", `/sessions/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("not_found");
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "hi" })).status).toBe(404);
  });

  it("pages the caller's sessions with ?limit= and ?cursor=, and refuses bad ones with 400", async () => {
    server = startServer(scriptedModel([]));
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push(await server.session());
    await browser(server.handler).call("POST", "/sessions", {}); // someone else's

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await server.call("GET", `/sessions?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.sessions.map((s: { sessionId: string }) => s.sessionId));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect((await server.call("GET", "/sessions")).body.nextCursor).toBeUndefined();

    for (const query of ["limit=0", "limit=101", "limit=ten", "limit=-1", "limit=1e1", "cursor=abc", "cursor=W10"]) {
      const bad = await server.call("GET", `/sessions?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.code).toBe("bad_request");
    }
  });

  it("deletes the caller's session: its open requests end with one result each, then it is gone", async () => {
    server = startServer(parkingModel());
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const lastSeq = (await server.events(id)).at(-1)!.seq;
    const stream = await server.send(`/sessions/${id}/events`, { headers: { "last-event-id": String(lastSeq) } });

    const deleted = await server.send(`/sessions/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    // The open stream sees the request cancelled, then ends (readSse stops at the stream's end).
    const seen = await readSse(stream, id, () => false);
    expect(seen.map((event) => event.type)).toEqual(["input.resolved", "tool.result", "turn.cancelled"]);
    expect((await server.call("GET", `/sessions/${id}`)).status).toBe(404);
    expect((await server.call("DELETE", `/sessions/${id}`)).status).toBe(404);
    expect((await server.call("GET", "/sessions")).body.sessions).toEqual([]);
  });

  it("refuses a session past the per-owner cap with 409 session_limit", async () => {
    server = startServer(scriptedModel([]), { maxSessionsPerOwner: 1 });
    await server.session();
    const refused = await server.call("POST", "/sessions", {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "session_limit", details: { limit: 1 } });
    expect((await browser(server.handler).call("POST", "/sessions", {})).status).toBe(201);
  });
});
