import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { createApiClient } from "@hitl-kit/client";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientBudgetBytes, measureShipped } from "../bench/bundle-size.js";
import { type PostgresCluster, postgresAvailable, startPostgres } from "../packages/server/test/postgres-cluster.js";
import { runApiExtractor } from "../scripts/api-report.js";
import { type ConsumerServer, type Exit, startConsumerServer } from "./consumer-server.js";
import { type Consumer, cleanEnv, packages, prepareConsumer, root, run } from "./prepare-consumer.js";

let consumer: Consumer;
let server: ConsumerServer | undefined;

beforeAll(() => {
  consumer = prepareConsumer((line) => console.log(`consumer: ${line}`));
}, 600_000);
afterAll(() => server?.stop());

const bin = (name: string) => join(root, "node_modules/.bin", name);

/**
 * The protocol's client over a `fetch` with a cookie jar, as a browser would be. Clients
 * given one jar are one browser (cookies do not tell ports apart).
 */
function apiWithCookies(url: string, cookies = new Map<string, string>()) {
  return createApiClient({
    url,
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      if (cookies.size > 0) headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
      const response = await fetch(input, { ...init, headers });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const at = pair.indexOf("=");
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    },
  });
}

/**
 * Runs a command without holding the event loop, so that tests marked concurrent run side by
 * side: its exit status and what it printed.
 */
function runAside(command: string, args: string[], cwd: string) {
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(command, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ status: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Gave up waiting; last: ${JSON.stringify(await read())}`);
}

describe("the packed packages, installed in a new project outside the workspace", () => {
  it("open every entry's declarations with the entry's summary, as editors and API Extractor read it", () => {
    const unsummarized: string[] = [];
    for (const name of packages) {
      const folder = join(consumer.app, "node_modules/@hitl-kit", name);
      const { exports } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
        exports: Record<string, { types?: string } | string>;
      };
      for (const [subpath, target] of Object.entries(exports)) {
        if (typeof target === "string" || target.types === undefined) continue;
        const declarations = readFileSync(join(folder, target.types), "utf8");
        if (!/^\/\*\*[\s\S]*?@packageDocumentation[\s\S]*?\*\//.test(declarations))
          unsummarized.push(`${name} ${subpath}`);
      }
    }
    expect(unsummarized).toEqual([]);
  });

  it('mark "use client" every shipped module that runs React (hooks, context, components) and no other', () => {
    // React Server Components bundlers (Next.js's App Router) read the directive: a module
    // with it becomes a client reference, one without it must run on the server too. So a
    // server component may render <AgentProvider> and import createWidgetRegistry or the
    // query options, each from the package itself.
    const wrong: string[] = [];
    const usesReact = /^import [^;]*? from "react(?:\/jsx-runtime)?";$/m;
    for (const name of ["react", "widgets", "ai-sdk"] as const) {
      const dist = join(consumer.app, "node_modules/@hitl-kit", name, "dist");
      for (const file of readdirSync(dist, { recursive: true, encoding: "utf8" })) {
        if (!file.endsWith(".js")) continue;
        const code = readFileSync(join(dist, file), "utf8");
        const client = code.startsWith('"use client";') || /^(?:\/\/[^\n]*\n)+"use client";/.test(code);
        if (client !== usesReact.test(code)) wrong.push(`${name}/dist/${file}: ${client ? "marked" : "unmarked"}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  // The checks below each keep a core busy for 20 s or more (the compilers); run side by side,
  // they use the core the other Vitest worker leaves idle once its files are done. Beside each
  // other and that worker's files, on a two-core runner, each takes up to five times as long as
  // alone (tsc 6: 117 s against 24), hence their own limit; a hang still fails.
  const sideBySide = { timeout: 360_000 };
  it.concurrent(
    "pass publint and arethetypeswrong (bundler and node16) as published",
    sideBySide,
    async ({ expect }) => {
      for (const name of packages) {
        const tarball = consumer.tarballs[name];
        const publint = await runAside(bin("publint"), ["run", tarball, "--strict"], root);
        expect(publint.stdout).toMatch(/All good/);
        const css = name === "widgets" ? ["--exclude-entrypoints", "styles.css"] : [];
        // attw exits non-zero on any problem in bundler or node16 (ESM) resolution.
        const attw = await runAside(bin("attw"), [tarball, "--profile", "esm-only", "--format", "ascii", ...css], root);
        expect(attw.status, `${attw.stdout}${attw.stderr}`).toBe(0);
      }
    },
  );

  it.concurrent.for([
    ["6", "strict"],
    ["5.9", "strict"],
    ["6", "strict: false, as Next.js writes a new project's tsconfig"],
  ])(
    "type-check every README snippet with tsc %s, %s, our declarations included",
    sideBySide,
    async ([version, mode], { expect }) => {
      const [command, ...compiler] = version === "6" ? ["npx", "tsc"] : ["node", consumer.typescript5];
      if (mode !== "strict") compiler.push("--strict", "false", "--exactOptionalPropertyTypes", "false");
      const sources = readdirSync(join(consumer.app, "src"));
      expect(sources).toEqual(expect.arrayContaining(["tools.ts", "server.ts", "chat.tsx", "main.tsx"]));
      expect(sources.filter((file) => file.startsWith("readme-")).length).toBeGreaterThan(8);
      // strict, exactOptionalPropertyTypes and skipLibCheck: false. Other packages' declarations
      // are not ours to fix (the AI SDK's fail under exactOptionalPropertyTypes, and before
      // TypeScript 6 some of Hono's); ours and the snippets must be clean.
      const tsc = await runAside(command!, [...compiler, "-p", "tsconfig.json", "--pretty", "false"], consumer.app);
      const errors = tsc.stdout.split("\n").filter((line) => / error TS\d+/.test(line));
      const ours = errors.filter(
        (line) => !line.startsWith("node_modules/") || line.startsWith("node_modules/@hitl-kit/"),
      );
      expect(ours).toEqual([]);
      expect(tsc.status === 0 || errors.length > 0).toBe(true);
    },
  );

  // In this process, holding it while the compilers above run in theirs.
  it.concurrent(
    "declare exactly the public API of the checked-in API reports (else run `npm run api:report` and review the diff)",
    sideBySide,
    async ({ expect }) => {
      // prepareConsumer built the packages, so dist/ holds the declarations that were packed.
      expect(
        runApiExtractor(false),
        "The public API changed: run `npm run api:report`, review the reports' diff and commit them.",
      ).toEqual([]);
    },
  );

  it("run the README's server with plain node: park a request, refuse a bad answer, answer it over HTTP", async () => {
    server = await startConsumerServer(consumer.app);
    const api = apiWithCookies(server.api);
    const { sessionId: id } = await api.createSession();
    await api.sendMessage(id, "make me a poster");
    const snapshot = () => api.getSnapshot(id);
    const picking = await until(snapshot, (s) => s.status === "waiting");
    expect(picking.pending).toMatchObject([{ toolName: "pick_template", kind: "input" }]);
    const requestId = picking.pending[0]!.requestId;

    const bad = await api.respond(id, [{ requestId, action: "accept", value: { templateId: 7 } }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(bad).toMatchObject({ code: "invalid_answer", status: 422 });
    expect((await snapshot()).pending).toHaveLength(1);

    const answer = { requestId, action: "accept" as const, value: { templateId: "calm" } };
    expect((await api.respond(id, [answer])).status).toBe(202);
    const approving = await until(snapshot, (s) => s.pending[0]?.kind === "approval");
    expect(approving.pending[0]!.toolName).toBe("refund_charge");
    const approval = { requestId: approving.pending[0]!.requestId, action: "accept" as const };
    expect((await api.respond(id, [approval])).status).toBe(202);
    const done = await until(snapshot, (s) => s.status === "idle" && s.messages.length >= 4);
    const text = JSON.stringify(done.messages);
    expect(text).toContain("Done: the poster uses your template and the charge is refunded.");
    expect(text).toContain('"refunded":1500');
  });

  it("run the README's Express app with plain node: hitl-kit's routes beside the app's own", async () => {
    const express = await startConsumerServer(consumer.app, "dist/express-server.js");
    try {
      const api = apiWithCookies(express.api);
      const { sessionId: id } = await api.createSession();
      await api.sendMessage(id, "hello");
      const done = await until(
        () => api.getSnapshot(id),
        (s) => s.status === "idle" && s.messages.length === 2,
      );
      expect(JSON.stringify(done.messages)).toContain("Hello from Express.");
      const health = await fetch(new URL("/health", express.api));
      expect(await health.json()).toEqual({ ok: true, status: "serving" });
    } finally {
      await express.stop();
    }
  });

  it("build the README's app with Vite: useAgent, a custom widget, the default widgets and their CSS", () => {
    const assets = readdirSync(join(consumer.app, "web/assets"));
    const css = assets.filter((file) => file.endsWith(".css")).map((file) => readFile(`web/assets/${file}`));
    const js = assets.filter((file) => file.endsWith(".js")).map((file) => readFile(`web/assets/${file}`));
    expect(css.join("")).toContain("--hitl-accent");
    expect(js.join("")).toContain("pick_template");
    expect(js.join("")).toContain("hitl-approval");
    expect(readFile("web/index.html")).toMatch(/<script type="module"[^>]*src="\/assets\//);
  });

  it("render the README's chat on the server with react-dom/server, touching no window and sending nothing", () => {
    const report = JSON.parse(run(process.execPath, ["dist/server-side-render.js"], consumer.app));
    // The message box; the log comes once the page has the history (none on a server, which loads nothing).
    expect(report).toEqual({
      html: expect.stringContaining("<label>Message <input"),
      requests: 0,
      window: "undefined",
    });
  });

  it("leave zod, React Query, better-sqlite3 and pg out of a project that does not use them", () => {
    const installed = (name: string) => existsSync(join(consumer.minimal, "node_modules", name));
    expect(
      ["@hitl-kit/react", "@hitl-kit/widgets", "@hitl-kit/server", "eventsource-parser"].filter(installed),
    ).toHaveLength(4);
    expect(["zod", "@tanstack/react-query", "@tanstack/query-core", "better-sqlite3", "pg"].filter(installed)).toEqual(
      [],
    );

    const script = `
      import { createAgentRuntime, memoryStore, scriptedModel } from "@hitl-kit/server";
      const runtime = createAgentRuntime({ model: scriptedModel([{ text: "hi" }]), store: memoryStore() });
      const { sessionId } = await runtime.createSession();
      await runtime.sendMessage(sessionId, "hello");
      await runtime.idle();
      const sqlite = await import("@hitl-kit/server/sqlite").then(() => "loaded", (error) => error.message);
      const postgres = await import("@hitl-kit/server/postgres").then(() => "loaded", (error) => error.message);
      const { fromVellumTool } = await import("@hitl-kit/protocol/convert");
      const ported = fromVellumTool({ name: "read_file", description: "Read.", input_schema: { type: "object" }, defaultRiskLevel: "high" });
      const protocol = await import("@hitl-kit/protocol");
      const convert = { ported: [ported.name, ported.approval.mode], inMainEntry: "fromVellumTool" in protocol };
      console.log(JSON.stringify({ status: (await runtime.getSnapshot(sessionId)).status, sqlite, postgres, convert }));
    `;
    const report = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script], consumer.minimal));
    expect(report.status).toBe("idle");
    expect(report.sqlite).toMatch(/better-sqlite3/);
    expect(report.postgres).toMatch(/'pg'/);
    // The converters ship as their own entry, and only there.
    expect(report.convert).toEqual({ ported: ["read_file", "always"], inMainEntry: false });
  });

  it("run the READMEs' tests with Vitest: the agent in process and over HTTP, and a widget on a recording and through the fetch handler", () => {
    const tests = ["src/agent.test.ts", "src/agent-http.test.ts", "src/paper-choice.test.tsx"];
    // `run` throws, with what Vitest printed, when a test fails.
    const output = run("npx", ["vitest", "run", "--reporter=verbose", ...tests], consumer.app);
    expect(stripVTControlCharacters(output)).toMatch(/Tests\s+4 passed \(4\)/);
  });

  it("run sqliteStore's server bundled to CommonJS by esbuild, as Lambda builds do, its WAL checkpointed in the worker", () => {
    // esbuild leaves `import.meta` empty in CommonJS: the store must find better-sqlite3 for
    // its checkpoint worker without it. Past 4 MiB of WAL the worker starts, and its first
    // checkpoint that starts the WAL over writes `wal_restarts`; the fallback (SQLite's own
    // checkpoints) would not.
    const script = `
      const { mkdtempSync, rmSync } = require("node:fs");
      const { tmpdir } = require("node:os");
      const { join } = require("node:path");
      const Database = require("better-sqlite3");
      const { createAgentRuntime, createFetchHandler, scriptedModel } = require("@hitl-kit/server");
      const { sqliteStore } = require("@hitl-kit/server/sqlite");
      async function main() {
        const dir = mkdtempSync(join(tmpdir(), "hitl-kit-cjs-"));
        const file = join(dir, "hitl.sqlite");
        try {
          const turns = 60;
          const model = scriptedModel(Array.from({ length: turns }, () => ({ text: "ok" })));
          const runtime = createAgentRuntime({ model, store: sqliteStore(file) });
          const handler = createFetchHandler(runtime, { identify: () => "ada" });
          const post = (path, body) => handler(new Request("http://127.0.0.1/api/agent" + path, {
            method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
          }));
          const { sessionId } = await (await post("/sessions", {})).json();
          for (let turn = 0; turn < turns; turn++) {
            const sent = await post("/sessions/" + sessionId + "/messages", { text: "x".repeat(90000) });
            if (!sent.ok) throw new Error("message " + turn + ": " + sent.status);
            await runtime.idle();
          }
          const { status } = await runtime.getSnapshot(sessionId);
          await runtime.close();
          const db = new Database(file, { readonly: true });
          const restarts = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'wal_restarts'").get().n;
          db.close();
          console.log(JSON.stringify({ status, checkpointedInWorker: restarts === 1 }));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      main().catch((error) => { console.error(error); process.exit(1); });
    `;
    const bundled = spawnSync(
      bin("esbuild"),
      ["--bundle", "--platform=node", "--format=cjs", "--external:better-sqlite3", "--outfile=cjs/server.cjs"],
      { cwd: consumer.app, input: script, encoding: "utf8", env: cleanEnv() },
    );
    expect(bundled.status, bundled.stderr).toBe(0);
    const report = JSON.parse(run(process.execPath, ["cjs/server.cjs"], consumer.app));
    expect(report).toEqual({ status: "idle", checkpointedInWorker: true });
  });

  it("run useChat's transport from the packed @hitl-kit/ai-sdk against the packed server, chunks checked by the AI SDK", () => {
    const script = `
      import { createAgentRuntime, createFetchHandler, memoryStore, scriptedModel } from "@hitl-kit/server";
      import { hitlChatTransport } from "@hitl-kit/ai-sdk";
      import { uiMessageChunkSchema } from "ai";
      const model = scriptedModel([{ text: "Pick one.", toolCalls: [{ toolName: "ask_question", input: { question: "Which?" } }] }]);
      const { askQuestion } = await import("@hitl-kit/protocol");
      const runtime = createAgentRuntime({ model, tools: [askQuestion()], store: memoryStore() });
      const handler = createFetchHandler(runtime, { identify: () => "ada" });
      const transport = hitlChatTransport({ url: "http://127.0.0.1/api/agent", fetch: (url, init) => handler(new Request(url, init)) });
      const stream = await transport.sendMessages({
        trigger: "submit-message", chatId: "c1", messageId: undefined, abortSignal: undefined,
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] }],
      });
      const types = [];
      for await (const chunk of stream) {
        if (!(await uiMessageChunkSchema().validate(chunk)).success) throw new Error("refused " + JSON.stringify(chunk));
        types.push(chunk.type);
      }
      await runtime.close();
      console.log(JSON.stringify(types));
    `;
    const types = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script], consumer.app));
    expect(types).toEqual(expect.arrayContaining(["start", "tool-input-available", "data-hitl-request", "finish"]));
  });

  it("forward an MCP elicitation with the packed @hitl-kit/mcp to a person, and their answer back", () => {
    const script = `
      import { createAgentRuntime, implement, memoryStore, scriptedModel } from "@hitl-kit/server";
      import { defineTool } from "@hitl-kit/protocol";
      import { elicitationCapabilities, withElicitations } from "@hitl-kit/mcp";
      import { Client } from "@modelcontextprotocol/sdk/client/index.js";
      import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
      import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
      const mcp = new McpServer({ name: "bookings", version: "1.0.0" });
      const requestedSchema = { type: "object", properties: { seats: { type: "integer", minimum: 1 } }, required: ["seats"] };
      mcp.registerTool("book", { description: "Book." }, async () => {
        const result = await mcp.server.elicitInput({ message: "Seats?", requestedSchema });
        return { content: [{ type: "text", text: JSON.stringify(result) }] };
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcp.connect(serverSide);
      const client = new Client({ name: "host", version: "1.0.0" }, { capabilities: elicitationCapabilities });
      await client.connect(clientSide);
      const book = defineTool({ name: "book", description: "Book.", inputSchema: { type: "object" } });
      const tool = implement(book, (_input, ctx) =>
        withElicitations(client, ctx, async () => (await client.callTool({ name: "book" })).content[0].text),
      );
      const model = scriptedModel([{ toolCalls: [{ toolName: "book", input: {} }] }, { text: "Booked." }]);
      const runtime = createAgentRuntime({ model, tools: [tool], store: memoryStore() });
      const { sessionId } = await runtime.createSession();
      await runtime.sendMessage(sessionId, "book");
      let pending = [];
      while (pending.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        pending = (await runtime.getSnapshot(sessionId)).pending;
      }
      await runtime.respond(sessionId, [{ requestId: pending[0].requestId, action: "accept", value: { seats: 3 } }]);
      await runtime.idle();
      const results = (await runtime.readEvents(sessionId, 0)).filter((event) => event.type === "tool.result");
      await runtime.close();
      await client.close();
      console.log(JSON.stringify({ prompt: pending[0].prompt, output: results.map((event) => event.output) }));
    `;
    const report = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script], consumer.app));
    expect(report).toEqual({ prompt: "Seats?", output: [JSON.stringify({ action: "accept", content: { seats: 3 } })] });
  });

  it("ship useAgent, the registry and the fallback form within the budget, zod-free", async () => {
    const shipped = await measureShipped(consumer.minimal);
    expect(shipped.client.gzipped).toBeLessThanOrEqual(clientBudgetBytes);
    const packagesIn = shipped.client.heaviest.map(([name]) => name);
    expect(packagesIn).toContain("@hitl-kit/client");
    expect(packagesIn.filter((name) => /zod|tanstack/.test(name))).toEqual([]);
    expect(shipped.widgets.minified).toBeGreaterThan(10_000);
    expect(shipped.css.minified).toBeGreaterThan(5_000);
  });
});

describe.runIf(postgresAvailable)("docs/deploying.md's servers on Postgres, from the packed packages and pg", () => {
  let cluster: PostgresCluster | undefined;
  const servers: ConsumerServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((instance) => instance.stop()));
    await cluster?.stop();
  }, 60_000);

  it("run its two servers on one database: ready for the balancer, a request parked through one is answered through the other, a stream on one sees every event, and SIGTERM lets each exit", async () => {
    cluster = await startPostgres();
    const env = { DATABASE_URL: await cluster.createDatabase(), HOST: "127.0.0.1" };
    // One after the other: the first migrates the schema, the second finds it migrated.
    const served = await startConsumerServer(consumer.app, "dist/postgres-server.js", env);
    servers.push(served);
    const express = await startConsumerServer(consumer.app, "dist/postgres-express-server.js", env);
    servers.push(express);
    for (const instance of [served, express]) {
      // The balancer's readiness probe, beside the protocol.
      const ready = await fetch(new URL("/ready", instance.api));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ok: true, status: "serving" });
    }
    const cookies = new Map<string, string>();
    const [a, b] = [apiWithCookies(served.api, cookies), apiWithCookies(express.api, cookies)];

    const { sessionId: id } = await a.createSession();
    const seen: ProtocolEvent[] = [];
    const reading = new AbortController();
    const stream = (async () => {
      for await (const event of a.events(id, { signal: reading.signal })) seen.push(event);
    })().catch((error: unknown) => {
      if (!reading.signal.aborted) throw error;
    });

    await b.sendMessage(id, "make me a poster");
    const picking = await until(
      () => a.getSnapshot(id),
      (s) => s.status === "waiting",
    );
    expect(picking.pending).toMatchObject([{ toolName: "pick_template", kind: "input" }]);
    const template = {
      requestId: picking.pending[0]!.requestId,
      action: "accept" as const,
      value: { templateId: "calm" },
    };
    expect((await b.respond(id, [template])).status).toBe(202);
    // The cookie minted by the first instance names the same person on the second, which took the
    // answer: the same answer again is taken as a resend, another one is refused.
    expect((await a.respond(id, [template])).status).toBeLessThan(300);
    const other = { ...template, value: { templateId: "bold" } };
    const refused = await a.respond(id, [other]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ status: 409 });
    const approving = await until(
      () => b.getSnapshot(id),
      (s) => s.pending[0]?.kind === "approval",
    );
    expect((await a.respond(id, [{ requestId: approving.pending[0]!.requestId, action: "accept" }])).status).toBe(202);
    const done = await until(
      () => b.getSnapshot(id),
      (s) => s.status === "idle" && s.messages.length >= 4,
    );
    expect(JSON.stringify(done.messages)).toContain("Done: the poster uses your template and the charge is refunded.");

    // The stream on the first instance got what the second appended, in order and without gaps.
    await until(
      async () => seen.at(-1)?.seq,
      (seq) => seq === done.lastSeq,
    );
    reading.abort();
    await stream;
    expect(seen.map((event) => event.seq)).toEqual(Array.from({ length: done.lastSeq }, (_, index) => index + 1));
    const results = seen.filter((event) => event.type === "tool.result");
    expect(results.map((event) => event.toolCallId).sort()).toEqual(
      seen
        .filter((event) => event.type === "tool.called")
        .map((event) => event.toolCallId)
        .sort(),
    );
    expect(results.map((event) => event.outcome)).toEqual(["ok", "ok"]);

    // SIGTERM: each closes its server, its runtime and its store, and with nothing left open the
    // process exits, though a browser holds a connection it has sent nothing on yet (a preconnect).
    const preconnects = await Promise.all(servers.map((instance) => openIdleConnection(instance.api)));
    const exits = await Promise.all(servers.map((instance) => exitWithin(instance, 30_000)));
    for (const socket of preconnects) socket.destroy();
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  });
});

/** A connection to a server that sends nothing, as a browser's preconnect. */
function openIdleConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Stops a server and answers how it exited; one still running `ms` later is killed, and fails the test. */
async function exitWithin(instance: ConsumerServer, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      instance.kill();
      reject(new Error(`${instance.api}: still running ${ms} ms after SIGTERM`));
    }, ms);
  });
  try {
    return await Promise.race([instance.stop(), late]);
  } finally {
    clearTimeout(timer);
  }
}

function readFile(path: string): string {
  return readFileSync(join(consumer.app, path), "utf8");
}
