import { join } from "node:path";
import { inspect } from "node:util";
import { APICallError, type LanguageModelV4 } from "@ai-sdk/provider";
import { defineTool, type ProtocolEvent } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRuntime, implement, memoryStore, type SessionStore, scriptedModel } from "../src/index.js";
import { localCoordination } from "../src/runtime/coordination.js";
import { errorSummary, redactedError } from "../src/runtime/logged-error.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { quiet, startServer, tempDir } from "./harness.js";

let server: ReturnType<typeof startServer> | undefined;
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) dir.cleanup();
});

/** A logger that keeps every argument it is given, at each level. */
function keptLog() {
  const lines: { level: "warn" | "error"; args: unknown[] }[] = [];
  return {
    lines,
    logger: {
      warn: (...args: unknown[]) => lines.push({ level: "warn", args }),
      error: (...args: unknown[]) => lines.push({ level: "error", args }),
    },
    /** Everything the logger received, hidden properties and causes included, as one text. */
    everything: () => inspect(lines, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
  };
}

/** A provider's refusal as the AI SDK makes it, carrying what must never reach a log. */
function providerError() {
  const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
  return new APICallError({
    message: "API key not valid. Please pass a valid API key.",
    url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=SECRET-KEY-IN-URL",
    requestBodyValues: {
      systemInstruction: { parts: [{ text: "SECRET-SYSTEM-PROMPT" }] },
      contents: [{ role: "user", parts: [{ text: "my card is SECRET-CARD-NUMBER" }] }],
    },
    statusCode: 401,
    responseHeaders: { "set-cookie": "sid=SECRET-COOKIE", "x-goog-api-key": "SECRET-HEADER-KEY" },
    responseBody: '{"error":{"message":"SECRET-RESPONSE-BODY"}}',
    data: { echoed: "SECRET-DATA" },
    isRetryable: false,
    cause: new TypeError("fetch failed", { cause: reset }),
  });
}

const secrets = /SECRET-/;

const failingModel = (error: unknown): LanguageModelV4 => ({
  ...scriptedModel([]),
  doStream: () => Promise.reject(error),
});

describe("what the runtime logs of an error", () => {
  it("logs a failed turn's provider error as one readable line, with none of its request, headers, body or URL query", async () => {
    const log = keptLog();
    server = startServer(failingModel(providerError()), { logger: log.logger, modelRetries: 0 });
    const id = await server.session();
    const { turnId } = (await server.call("POST", `/sessions/${id}/messages`, { text: "go" })).body;
    await server.runtime.idle();

    expect(log.lines).toHaveLength(1);
    const [{ level, args }] = log.lines as [(typeof log.lines)[number]];
    expect(level).toBe("warn");
    expect(args[0]).toBe(
      `hitl-kit: session ${id} turn ${turnId}: the turn failed: AI_APICallError (status 401, https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent): ` +
        "API key not valid. Please pass a valid API key.; cause: TypeError: fetch failed; cause: Error (code ECONNRESET): socket hang up",
    );
    // Beside the line, for a console: a copy of the error with its stack, not the original.
    const logged = args[1] as Error & Record<string, unknown>;
    expect(logged).toBeInstanceOf(Error);
    expect(logged).not.toBeInstanceOf(APICallError);
    expect(logged.name).toBe("AI_APICallError");
    expect(logged.stack).toContain("logging.test.ts");
    expect({ ...logged }).toEqual({
      statusCode: 401,
      isRetryable: false,
      url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    });
    expect((logged.cause as Error).message).toBe("fetch failed");
    expect(((logged.cause as Error).cause as Error & { code: string }).code).toBe("ECONNRESET");
    expect(log.everything()).not.toMatch(secrets);
  });

  it("logs a request the handler failed with its method, path and cause, redacted, without its query or headers", async () => {
    const log = keptLog();
    server = startServer(scriptedModel([]), {
      logger: log.logger,
      http: {
        identify: () => {
          throw providerError();
        },
      },
    });
    const asked = await server.call("GET", "/sessions?limit=5&token=SECRET-QUERY", undefined, {
      authorization: "Bearer SECRET-AUTHORIZATION",
    });
    expect(asked.status).toBe(500);
    expect(log.lines).toHaveLength(1);
    const [{ level, args }] = log.lines as [(typeof log.lines)[number]];
    expect(level).toBe("error");
    expect(args[0]).toMatch(
      /^hitl-kit: unexpected error in GET \/api\/agent\/sessions: AI_APICallError \(status 401, https:\/\/generativelanguage\.googleapis\.com\/\S+:streamGenerateContent\): API key not valid\. .*; cause: TypeError: fetch failed; cause: Error \(code ECONNRESET\): socket hang up$/,
    );
    expect(args[1]).toBeInstanceOf(Error);
    expect(args[1]).not.toBeInstanceOf(APICallError);
    expect(log.everything()).not.toMatch(secrets);
  });

  it("says what to change when a middleware read the body before the handler", async () => {
    const log = keptLog();
    server = startServer(scriptedModel([]), { logger: log.logger });
    const request = new Request("http://localhost/api/agent/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await request.json(); // what Hono's c.req.json() in a middleware does to it
    const refused = await server.handler(request);
    expect(refused.status).toBe(500);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]?.args[0]).toContain(
      "unexpected error in POST /api/agent/sessions: Error: The request's body was read before it reached hitl-kit's handler, which reads it itself: put the handler before what read it",
    );
  });

  it("summarizes what is not an Error, a long message on one line, and a cause chain that loops", () => {
    expect(errorSummary("plain words")).toBe("plain words");
    expect(errorSummary({ code: "E_THING", secret: "SECRET-FIELD" })).toBe("Object (code E_THING): (no message)");
    expect(errorSummary(new RangeError("first line\n  second line"))).toBe("RangeError: first line second line");
    expect(errorSummary(new Error("x".repeat(2_000))).length).toBeLessThan(600);
    const looping = new Error("outer");
    looping.cause = new Error("inner", { cause: looping });
    expect(errorSummary(looping)).toBe("Error: outer; cause: Error: inner");
    expect((redactedError(looping).cause as Error).cause).toBeUndefined();
  });
});

const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string() }),
});
const refundOnce = scriptedModel([
  { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1" } }] },
  { text: "Done." },
]);

/** The ids of a session's first turn and first tool call, from its log. */
function idsOf(events: ProtocolEvent[]) {
  const started = events.find((event) => event.type === "turn.started");
  const called = events.find((event) => event.type === "tool.called");
  return {
    turnId: started?.type === "turn.started" ? started.turnId : "?",
    toolCallId: called?.type === "tool.called" ? called.toolCallId : "?",
  };
}

describe("the events an operator must act on", () => {
  it("logs a tool that throws, with its session, turn and call, once", async () => {
    const log = keptLog();
    const failing = implement(refund, async () => {
      throw new Error("The payment provider refused: card expired", { cause: new Error("HTTP 402") });
    });
    server = startServer(refundOnce, { tools: [failing], logger: log.logger });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "refund it" });
    await server.runtime.idle();
    const { turnId, toolCallId } = idsOf(await server.events(id));
    expect(log.lines.map((line) => [line.level, line.args[0]])).toEqual([
      [
        "warn",
        `hitl-kit: session ${id} turn ${turnId} call ${toolCallId} (refund_charge): the tool failed: Error: The payment provider refused: card expired; cause: Error: HTTP 402`,
      ],
    ]);
    expect(log.lines[0]!.args[1]).toBeInstanceOf(Error);
  });

  it("logs nothing when a Stop aborts a tool, which then rejects", async () => {
    const log = keptLog();
    const stoppable = implement(
      refund,
      (_input, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    );
    server = startServer(refundOnce, { tools: [stoppable], logger: log.logger });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "refund it" });
    await vi.waitFor(async () => expect((await server!.snapshot(id)).messages.at(-1)?.parts).toHaveLength(1));
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    await server.runtime.idle();
    expect((await server.snapshot(id)).status).toBe("idle");
    expect(log.lines).toEqual([]);
  });

  it("logs a tool still running when the Stop's grace is over, since it may yet take effect", async () => {
    const log = keptLog();
    const stubborn = implement(refund, () => new Promise(() => {}));
    server = startServer(refundOnce, { tools: [stubborn], logger: log.logger, abortGraceMs: 50 });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "refund it" });
    await vi.waitFor(async () => expect((await server!.snapshot(id)).messages.at(-1)?.parts).toHaveLength(1));
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    await vi.waitFor(async () => expect((await server!.snapshot(id)).status).toBe("idle"), { timeout: 5_000 });
    const { turnId, toolCallId } = idsOf(await server.events(id));
    expect(log.lines.map((line) => [line.level, line.args[0]])).toEqual([
      [
        "warn",
        `hitl-kit: session ${id} turn ${turnId} call ${toolCallId} (refund_charge): the tool was still running 50 ms after its turn was stopped (abortGraceMs); the call got a cancelled result, but the tool may or may not complete: check whether it took effect.`,
      ],
    ]);
  });

  it("logs no tool outlasting the grace when the instance lost the turn, which the instance taking it over ends", async () => {
    let loseLease: (sessionId: string) => void = () => {};
    const store: SessionStore = Object.assign(Object.create(memoryStore()), {
      coordinate: () => ({
        ...localCoordination(),
        onAbort: (listener: (sessionId: string, cause: { kind: "lease_lost" }) => void) => {
          loseLease = (sessionId) => listener(sessionId, { kind: "lease_lost" });
        },
      }),
    });
    const log = keptLog();
    const stubborn = implement(refund, () => new Promise(() => {}));
    server = startServer(refundOnce, { tools: [stubborn], store, logger: log.logger, abortGraceMs: 50 });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "refund it" });
    await vi.waitFor(async () => expect((await server!.snapshot(id)).messages.at(-1)?.parts).toHaveLength(1));
    loseLease(id);
    await server.runtime.idle();
    expect((await server.snapshot(id)).status).toBe("running");
    expect(log.lines).toEqual([]);
  });

  /**
   * A session whose refund was running when its process stopped: the first runtime's file,
   * let go of while the tool runs, as a crash leaves it. `stopAsked` keeps a Stop the person
   * pressed that the process died before it saw through.
   */
  async function interruptedRefund(stopAsked: boolean) {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir.path, "hitl.sqlite");
    const firstStore = sqliteStore(path);
    const hanging = implement(refund, () => new Promise(() => {}));
    const first = createAgentRuntime({ model: refundOnce, tools: [hanging], store: firstStore, logger: quiet });
    const { sessionId } = await first.createSession();
    const { turnId } = await first.sendMessage(sessionId, "refund it");
    await vi.waitFor(async () =>
      expect((await firstStore.getToolCalls(sessionId, turnId, 1)).map((call) => call.state)).toEqual(["executing"]),
    );
    await firstStore.close();

    const store = sqliteStore(path);
    if (stopAsked) await store.write(sessionId, { session: { cancelRequested: turnId } });
    const log = keptLog();
    const second = createAgentRuntime({ model: refundOnce, tools: [hanging], store, logger: log.logger });
    await second.ready;
    await second.idle();
    const events = await second.readEvents(sessionId, 0);
    await second.close();
    await store.close();
    return { log, sessionId, events, ...idsOf(events) };
  }

  it("logs, at the next start, how many turns it resumes and each call cut off mid-run", async () => {
    const { log, sessionId, events, turnId, toolCallId } = await interruptedRefund(false);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "error" }]);
    expect(log.lines.map((line) => [line.level, line.args[0]])).toEqual([
      [
        "warn",
        "hitl-kit: resuming turns left running by a server that stopped (this one before a restart, or an instance whose lease lapsed), 32 at a time: 1 found.",
      ],
      [
        "warn",
        `hitl-kit: session ${sessionId} turn ${turnId} call ${toolCallId} (refund_charge): the server running the tool stopped before it finished; the call got an error result, but the tool may or may not have completed: check whether it took effect.`,
      ],
    ]);
  });

  it("logs a call cut off mid-run whose turn the person had stopped", async () => {
    const { log, sessionId, events, turnId, toolCallId } = await interruptedRefund(true);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "cancelled" }]);
    expect(log.lines.map((line) => line.args[0])).toEqual([
      expect.stringContaining("hitl-kit: resuming turns left running"),
      `hitl-kit: session ${sessionId} turn ${turnId} call ${toolCallId} (refund_charge): the server running the tool stopped before it finished; the call got a cancelled result, but the tool may or may not have completed: check whether it took effect.`,
    ]);
  });

  it("logs nothing at a start that finds no turn left running", async () => {
    const log = keptLog();
    server = startServer(refundOnce, { logger: log.logger });
    await server.runtime.ready;
    expect(log.lines).toEqual([]);
  });
});
