import { inspect } from "node:util";
import { APICallError, type LanguageModelV4 } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel } from "../src/index.js";
import { errorSummary, redactedError } from "../src/runtime/logged-error.js";
import { startServer } from "./harness.js";

let server: ReturnType<typeof startServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
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
