import { type Served, scriptedModel, serve } from "@hitl-kit/server";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatApp, createChatApp } from "../server/chat-app.js";
import { demoScript } from "../server/demo-script.js";
import { tempDir } from "./chat-harness.js";

let served: Served | undefined;
let app: ChatApp | undefined;
let dir: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await served?.close();
  await app?.close();
  dir?.cleanup();
});

/** The demo server on a loopback port, with its default (anonymous cookie) identity. */
async function startDemo() {
  dir = tempDir();
  app = createChatApp({
    dataDir: dir.path,
    expireAfterMs: undefined,
    model: { model: scriptedModel(demoScript), label: "scripted" },
    logger: { warn: () => {}, error: () => {} },
  });
  served = await serve(app.handler, { port: 0 });
  return served.url;
}

/** A person with a browser: real HTTP, and a cookie jar that keeps what the server sets. */
function person(base: string) {
  let cookie: string | undefined;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(cookie ? { cookie } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = response.headers.getSetCookie()[0];
    if (set) cookie = set.split(";")[0];
    const text = method === "GET" && path.endsWith("/events") && response.ok ? "" : await response.text();
    if (response.body && !response.bodyUsed) await response.body.cancel();
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  return Object.assign(call, { cookie: () => cookie ?? "" });
}

describe("two people on the demo server", () => {
  it("neither can list, read, stream, answer, cancel or delete the other's session", async () => {
    const base = await startDemo();
    const ada = person(base);
    const bob = person(base);
    const adaId = (await ada("POST", "/api/agent/sessions", {})).body.sessionId;
    const bobId = (await bob("POST", "/api/agent/sessions", {})).body.sessionId;
    await ada("POST", `/api/agent/sessions/${adaId}/messages`, { text: "refund 1500" });
    await bob("POST", `/api/agent/sessions/${bobId}/messages`, { text: "refund 1500" });
    await app!.runtime.idle();
    const snapshots = {
      [adaId]: (await ada("GET", `/api/agent/sessions/${adaId}`)).body,
      [bobId]: (await bob("GET", `/api/agent/sessions/${bobId}`)).body,
    };
    expect(snapshots[adaId].pending).toHaveLength(1);

    for (const [me, mine, theirs] of [
      [ada, adaId, bobId],
      [bob, bobId, adaId],
    ] as const) {
      const listed = (await me("GET", "/api/agent/sessions")).body.sessions.map(
        (s: { sessionId: string }) => s.sessionId,
      );
      expect(listed).toEqual([mine]);
      const { requestId } = snapshots[theirs].pending[0];
      const attempts = [
        await me("GET", `/api/agent/sessions/${theirs}`),
        await me("GET", `/api/agent/sessions/${theirs}/events`),
        await me("POST", `/api/agent/sessions/${theirs}/responses`, { responses: [{ requestId, action: "accept" }] }),
        await me("POST", `/api/agent/sessions/${theirs}/messages`, { text: "never mind" }),
        await me("POST", `/api/agent/sessions/${theirs}/cancel`, {}),
        await me("DELETE", `/api/agent/sessions/${theirs}`),
      ];
      expect(attempts.map((attempt) => [attempt.status, attempt.body.error.code])).toEqual(
        Array.from({ length: 6 }, () => [404, "not_found"]),
      );
    }
    // Nothing changed: each still waits on its own approval, and its owner can answer it.
    expect((await ada("GET", `/api/agent/sessions/${adaId}`)).body).toEqual(snapshots[adaId]);
    expect((await bob("GET", `/api/agent/sessions/${bobId}`)).body).toEqual(snapshots[bobId]);
    const { requestId } = snapshots[adaId].pending[0];
    expect(
      (await ada("POST", `/api/agent/sessions/${adaId}/responses`, { responses: [{ requestId, action: "accept" }] }))
        .status,
    ).toBe(202);
  });

  it("a cross-site page cannot approve or cancel: a text/plain form, a no-cors Blob and a foreign Origin change nothing", async () => {
    const base = await startDemo();
    const ada = person(base);
    const id = (await ada("POST", "/api/agent/sessions", {})).body.sessionId;
    await ada("POST", `/api/agent/sessions/${id}/messages`, { text: "refund 1500" });
    await app!.runtime.idle();
    const before = (await ada("GET", `/api/agent/sessions/${id}`)).body;
    const { requestId } = before.pending[0];
    const approve = JSON.stringify({ responses: [{ requestId, action: "accept" }] });

    // Even were the cookie sent along (SameSite=Lax keeps it from cross-site POSTs), each is refused.
    const attacks: [string, RequestInit][] = [
      ["/cancel", { headers: { "content-type": "text/plain" }, body: "" }],
      ["/responses", { headers: { "content-type": "text/plain" }, body: approve }],
      ["/responses", { body: new Blob([approve]) }],
      [
        "/responses",
        { headers: { "content-type": "application/json", origin: "https://evil.example" }, body: approve },
      ],
      ["/cancel", { headers: { "content-type": "application/json", origin: "https://evil.example" }, body: "{}" }],
    ];
    for (const [path, init] of attacks) {
      const headers = new Headers(init.headers);
      headers.set("cookie", ada.cookie());
      const response = await fetch(`${base}/api/agent/sessions/${id}${path}`, { ...init, method: "POST", headers });
      expect([403, 415]).toContain(response.status);
      expect((await response.json()).error.code).toMatch(/forbidden|unsupported_media_type/);
    }
    await app!.runtime.idle();
    expect((await ada("GET", `/api/agent/sessions/${id}`)).body).toEqual(before);
  });
});
