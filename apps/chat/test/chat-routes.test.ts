import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChat, tempDir } from "./chat-harness.js";

let chat: ReturnType<typeof startChat>;
let dist: ReturnType<typeof tempDir>;
afterEach(async () => {
  await chat?.close();
  dist?.cleanup();
});

function startWithDist() {
  dist = tempDir();
  mkdirSync(join(dist.path, "assets"));
  mkdirSync(join(dist.path, "media"));
  writeFileSync(join(dist.path, "index.html"), "<!doctype html><title>chat</title>");
  writeFileSync(join(dist.path, "assets", "index-abc.js"), "console.log(1)");
  writeFileSync(join(dist.path, "media", "ocean.svg"), "<svg/>");
  chat = startChat({ distDir: dist.path });
}

describe("the demo server's routes", () => {
  it("serves the media library as JSON", async () => {
    startWithDist();
    const response = await chat.call("GET", "/api/media");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body.items).toHaveLength(8);
    expect(response.body.items[0]).toEqual({
      id: "mountains",
      label: "Mountains",
      alt: "Snow-capped mountains under a pastel sky",
      src: "/media/mountains.svg",
    });
    expect((await chat.call("POST", "/api/media", {})).status).toBe(405);
  });

  it("mounts wire protocol v1 under /api/agent", async () => {
    startWithDist();
    const created = await chat.call("POST", "/api/agent/sessions", {});
    expect(created.status).toBe(201);
    const listed = await chat.call("GET", "/api/agent/sessions");
    expect(listed.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([created.body.sessionId]);
    expect((await chat.call("GET", `/api/agent/sessions/${created.body.sessionId}`)).body.status).toBe("idle");
    expect((await chat.call("GET", "/api/agent/sessions/nope")).status).toBe(404);
    expect((await chat.call("GET", "/api/other")).body.error.code).toBe("not_found");
  });

  it("serves built files with their content type, and hashed assets for a year", async () => {
    startWithDist();
    const script = await chat.call("GET", "/assets/index-abc.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");
    const svg = await chat.call("GET", "/media/ocean.svg");
    expect(svg.headers.get("content-type")).toBe("image/svg+xml");
    expect(svg.headers.get("cache-control")).toBe("no-cache");
    const index = await chat.call("GET", "/");
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(index.text).toContain("<title>chat</title>");
  });

  it("falls back to index.html for app paths, and answers 404 for a missing file", async () => {
    startWithDist();
    const page = await chat.call("GET", "/sessions/abc");
    expect(page.status).toBe(200);
    expect(page.text).toContain("<title>chat</title>");
    expect((await chat.call("GET", "/assets/missing.js")).status).toBe(404);
    expect((await chat.call("GET", "/logo.png")).status).toBe(404);
  });

  it("never serves a file outside the build", async () => {
    startWithDist();
    expect((await chat.call("GET", "/..%2f..%2fetc%2fpasswd")).status).toBe(400);
    expect((await chat.call("DELETE", "/index.html")).status).toBe(405);
  });
});
