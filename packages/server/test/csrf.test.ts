import { afterEach, describe, expect, it } from "vitest";
import { createFetchHandler, scriptedModel } from "../src/index.js";
import { startServer } from "./harness.js";

let server: ReturnType<typeof startServer>;
afterEach(() => server?.close());

const pick = { toolName: "pick_template", input: { templates: ["a", "b"] } };

/** A parked session of the harness's browser, and a check that nothing about it changed. */
async function victim(options = {}) {
  server = startServer(
    scriptedModel(() => ({ text: "Pick.", toolCalls: [pick] })),
    options,
  );
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  await server.runtime.idle();
  const { requestId } = (await server.snapshot(id)).pending[0]!;
  const before = await server.events(id);
  return {
    id,
    requestId,
    async unchanged() {
      await server.runtime.idle();
      expect(await server.events(id)).toEqual(before);
      expect((await server.snapshot(id)).pending.map((request) => request.requestId)).toEqual([requestId]);
    },
  };
}

/** What a cross-site page's browser sends along: the victim's cookie (were it not SameSite) and the page's origin. */
const crossSite = { origin: "https://evil.example", "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" };

describe("cross-site request forgery", () => {
  it("refuses an HTML form posting text/plain, to every command, and nothing changes", async () => {
    const session = await victim();
    const approve = `{"responses":[{"requestId":"${session.requestId}","action":"accept","value":{"templateId":"a"}}]}`;
    for (const [path, body] of [
      ["/cancel", ""],
      ["/messages", '{"text":"hi"}'],
      ["/responses", approve],
    ]) {
      // With Fetch Metadata, as browsers send it: 403.
      const forged = await server.send(`/sessions/${session.id}${path}`, {
        method: "POST",
        headers: { "content-type": "text/plain", ...crossSite, "sec-fetch-mode": "navigate" },
        body,
      });
      expect(forged.status).toBe(403);
      expect((await forged.json()).error.code).toBe("forbidden");
      // Without any browser header, the content type alone refuses it: 415.
      const bare = await server.send(`/sessions/${session.id}${path}`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body,
      });
      expect(bare.status).toBe(415);
      expect((await bare.json()).error.code).toBe("unsupported_media_type");
    }
    await session.unchanged();
  });

  it("refuses a no-cors fetch with a Blob body (no content type at all), and nothing changes", async () => {
    const session = await victim();
    const blob = new Blob([
      JSON.stringify({ responses: [{ requestId: session.requestId, action: "accept", value: { templateId: "a" } }] }),
    ]);
    for (const headers of [crossSite, {}]) {
      const forged = await server.send(`/sessions/${session.id}/responses`, { method: "POST", headers, body: blob });
      expect([403, 415]).toContain(forged.status);
      expect((await forged.json()).error.message).toEqual(expect.any(String));
    }
    await session.unchanged();
  });

  it("refuses JSON from a page of another origin with 403, Origin alone or with Fetch Metadata, and nothing changes", async () => {
    const session = await victim();
    const attempts: [string, string, unknown][] = [
      [
        "POST",
        "/responses",
        { responses: [{ requestId: session.requestId, action: "accept", value: { templateId: "a" } }] },
      ],
      ["POST", "/messages", { text: "hi" }],
      ["POST", "/cancel", {}],
      ["DELETE", "", undefined],
    ];
    for (const headers of [
      { origin: "https://evil.example" },
      { origin: "null" },
      crossSite,
      { "sec-fetch-site": "same-site" },
    ] as Record<string, string>[]) {
      for (const [method, path, body] of attempts) {
        const forged = await server.call(method, `/sessions/${session.id}${path}`, body, headers);
        expect(forged.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(forged.body.error.code).toBe("forbidden");
      }
    }
    const create = await server.call("POST", "/sessions", {}, { origin: "https://evil.example" });
    expect(create.status).toBe(403);
    await session.unchanged();
  });

  it("accepts the same origin by Origin or by Sec-Fetch-Site, and requests no browser sent", async () => {
    const session = await victim();
    for (const headers of [
      { origin: "http://127.0.0.1" },
      { "sec-fetch-site": "same-origin", origin: "http://127.0.0.1" },
      {},
    ] as Record<string, string>[]) {
      const listed = await server.call(
        "POST",
        `/sessions/${session.id}/responses`,
        {
          responses: [{ requestId: "req_unknown", action: "cancel" }],
        },
        headers,
      );
      expect(listed.status).toBe(404); // past the origin check: the request is unknown
    }
  });

  it("accepts the same origin by the Host header its browser sent when the framework rebuilt the URL (Next.js)", async () => {
    const session = await victim();
    // A Next.js route handler gets http://localhost:<port>/… whatever host the browser asked for.
    const post = (origin: string) =>
      server.handler(
        new Request("http://localhost:3000/api/agent/sessions", {
          method: "POST",
          headers: { "content-type": "application/json", host: "App.Example.com", origin },
          body: "{}",
        }),
      );
    expect((await post("https://app.example.com")).status).toBe(201);
    expect((await post("https://evil.example")).status).toBe(403);
    await session.unchanged();
  });
});

describe("allowedOrigins, for a UI on another origin", () => {
  const ui = "https://app.example";

  it("answers a preflight from an allowed origin with CORS headers, and refuses one from elsewhere with 403", async () => {
    server = startServer(scriptedModel([]), { http: { allowedOrigins: [ui] } });
    const preflight = await server.send("/sessions", {
      method: "OPTIONS",
      headers: {
        origin: ui,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      "access-control-allow-origin": ui,
      "access-control-allow-credentials": "true",
      "access-control-allow-methods": "GET, HEAD, POST, DELETE",
      "access-control-allow-headers": "content-type",
      vary: "Origin",
    });
    const other = await server.send("/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(other.status).toBe(403);
    expect((await other.json()).error.code).toBe("forbidden");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets the allowed origin create and read sessions, with CORS headers on every answer", async () => {
    // A page on another site signs people in itself: the identity cookie does not cross sites.
    const identify = (request: Request) => request.headers.get("authorization")?.replace("Bearer ", "");
    server = startServer(scriptedModel([]), { http: { allowedOrigins: [ui], identify } });
    const headers = { origin: ui, "sec-fetch-site": "cross-site", authorization: "Bearer alice" };
    const created = await server.call("POST", "/sessions", {}, headers);
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe(ui);
    const read = await server.call("GET", `/sessions/${created.body.sessionId}`, undefined, headers);
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-credentials")).toBe("true");
    const missing = await server.call("GET", "/sessions/ses_nope", undefined, headers);
    expect(missing.headers.get("access-control-allow-origin")).toBe(ui); // errors are readable too
    // The page's client may read the protocol version the server speaks (and Retry-After).
    for (const answer of [created, read, missing]) {
      expect(answer.headers.get("hitl-protocol")).toBe("2");
      expect(answer.headers.get("access-control-expose-headers")?.split(/,\s*/)).toEqual(
        expect.arrayContaining(["retry-after", "hitl-protocol"]),
      );
    }
  });

  it("tells an allowed page on another site that the identity cookie cannot reach it, and makes no session", async () => {
    server = startServer(scriptedModel([]), { http: { allowedOrigins: [ui, "http://127.0.0.1:5173"] } });
    const refused = await server.call("POST", "/sessions", {}, { origin: ui, "sec-fetch-site": "cross-site" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ui); // the page can read why
    expect(refused.body.error).toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(
        /knows people by a cookie, which the browser does not keep for a page on another site \(https:\/\/app\.example\)/,
      ),
    });
    expect(await server.runtime.listSessions({})).toEqual([]);
    // Another port of the same host is the same site: the cookie goes along.
    const sameSite = { origin: "http://127.0.0.1:5173", "sec-fetch-site": "same-site" };
    const created = await server.call("POST", "/sessions", {}, sameSite);
    expect(created.status).toBe(201);
    expect((await server.call("GET", `/sessions/${created.body.sessionId}`, undefined, sameSite)).status).toBe(200);
  });

  it("logs a refused page origin once, since the page sees only a network error", async () => {
    const warnings: string[] = [];
    server = startServer(scriptedModel([]), {
      logger: { warn: (message: string) => warnings.push(message), error: () => {} },
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      await server.send("/sessions", {
        method: "OPTIONS",
        headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
      });
      await server.call("POST", "/sessions", {}, { origin: "http://localhost:5173", "sec-fetch-site": "cross-site" });
    }
    expect(warnings).toEqual([
      expect.stringMatching(
        /^hitl-kit: refused requests from the page at http:\/\/localhost:5173: it is neither this server's origin nor in allowedOrigins\..*add its origin to allowedOrigins \(behind a proxy, set trustProxy/,
      ),
    ]);
  });

  it("refuses an entry that is not an origin, naming the fix", async () => {
    server = startServer(scriptedModel([]));
    for (const entry of ["*", "app.example", "https://app.example/path"]) {
      expect(() => createFetchHandler(server.runtime, { allowedOrigins: [entry] })).toThrow(/not an origin/);
    }
  });
});
