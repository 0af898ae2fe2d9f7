import { join } from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart, LoadAPIKeyError } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentRuntime, memoryStore, scriptedModel } from "../src/index.js";
import { modelRetryDelay } from "../src/runtime/model-retry.js";
import { ModelStalled } from "../src/runtime/model-step.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, startServer, tempDir } from "./harness.js";
import { startFakeAnthropic } from "./providers/fake-anthropic.js";
import { startFakeOpenAI } from "./providers/fake-openai.js";
import type { FakeProvider, FakeReply } from "./providers/fake-reply.js";

let server: ReturnType<typeof startServer> | undefined;
const fakes: FakeProvider[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

/** A logger that keeps what it was told. */
function keptLog() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (...args: unknown[]) => warnings.push(args.join(" ")), error: () => {} } };
}

const overloaded = (headers: Record<string, string> = {}) =>
  new APICallError({
    message: "Overloaded",
    url: "https://api.example/v1/messages",
    requestBodyValues: {},
    statusCode: 529,
    responseHeaders: headers,
  });

/** A model whose n-th call (from 0) is `calls[n]`, or the scripted reply "Recovered." past the list. */
function modelOf(calls: ((options: Parameters<LanguageModelV4["doStream"]>[0]) => unknown)[]) {
  const signals: AbortSignal[] = [];
  const model: LanguageModelV4 = {
    ...scriptedModel([]),
    async doStream(options) {
      signals.push(options.abortSignal!);
      const call = calls[signals.length - 1];
      if (call) return (await call(options)) as Awaited<ReturnType<LanguageModelV4["doStream"]>>;
      return scriptedModel([{ text: "Recovered." }]).doStream(options);
    },
  };
  return { model, signals };
}

/** A stream that sends `parts`, then nothing more, and ignores its call's abort signal; `cancelled` once it is cancelled. */
function stalledStream(parts: LanguageModelV4StreamPart[] = []) {
  let cancelled = false;
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

const hello: LanguageModelV4StreamPart[] = [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Hello, " },
];

async function turnOf(model: LanguageModelV4, options: Parameters<typeof startServer>[1] = {}) {
  server = startServer(model, options);
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  return id;
}

async function lastReply(id: string) {
  const snapshot = await server!.snapshot(id);
  return {
    snapshot,
    text: snapshot.messages
      .at(-1)
      ?.parts.map((part) => ("text" in part ? part.text : ""))
      .join(""),
  };
}

describe("a model call that fails before it streams anything", () => {
  it("is tried again after the provider's overload, and the turn completes", async () => {
    const { model, signals } = modelOf([() => Promise.reject(overloaded()), () => Promise.reject(overloaded())]);
    const log = keptLog();
    const id = await turnOf(model, { modelRetryDelayMs: 1, logger: log.logger });
    await server!.runtime.idle();
    const { snapshot, text } = await lastReply(id);
    expect(snapshot.error).toBeUndefined();
    expect(text).toBe("Recovered.");
    expect(signals).toHaveLength(3);
    expect(log.warnings).toEqual([
      expect.stringContaining(
        "the model call failed; trying again in 1 ms (retry 1 of 2): AI_APICallError (status 529, https://api.example/v1/messages): Overloaded",
      ),
      expect.stringContaining("trying again in 2 ms (retry 2 of 2)"),
    ]);
    const started = (await server!.events(id)).find((event) => event.type === "turn.started");
    const turnId = started?.type === "turn.started" ? started.turnId : "?";
    expect(log.warnings[0]).toMatch(new RegExp(`^hitl-kit: session ${id} turn ${turnId}: the model call failed`));
    // One assistant message: the failed calls left nothing behind.
    expect(snapshot.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("fails the turn with the provider's status once modelRetries are spent", async () => {
    const { model, signals } = modelOf([() => Promise.reject(overloaded()), () => Promise.reject(overloaded())]);
    const id = await turnOf(model, { modelRetries: 1, modelRetryDelayMs: 1 });
    await server!.runtime.idle();
    expect((await server!.snapshot(id)).error).toEqual({
      code: "model_529",
      message: "The model provider is overloaded or unavailable right now; try again in a moment.",
    });
    expect(signals).toHaveLength(2);
  });

  it("says a failure in words for the person where the provider's are not, and logs the provider's", async () => {
    const failures: [unknown, { code: string; message: string }][] = [
      [
        new APICallError({
          message: "Incorrect API key provided: sk-proj-abc1****",
          url: "u",
          requestBodyValues: {},
          statusCode: 401,
        }),
        { code: "model_401", message: "The model provider refused this server's credentials (its API key)." },
      ],
      [
        new APICallError({
          message: "Rate limit reached",
          url: "u",
          requestBodyValues: {},
          statusCode: 429,
          isRetryable: false,
        }),
        {
          code: "model_429",
          message: "The model provider is limiting this server's requests right now; try again in a minute.",
        },
      ],
      // The reply's connection broke after it began: its start said 200.
      [
        new APICallError({
          message: "Failed to process successful response",
          url: "u",
          requestBodyValues: {},
          statusCode: 200,
          isRetryable: false,
        }),
        { code: "model_interrupted", message: "The connection to the model broke off in the middle of its reply." },
      ],
      [
        new LoadAPIKeyError({ message: "Anthropic API key is missing. Pass it using the 'apiKey' parameter." }),
        { code: "model_error", message: "The server has no API key for its model provider." },
      ],
    ];
    for (const [failure, said] of failures) {
      const log = keptLog();
      const { model } = modelOf([() => Promise.reject(failure)]);
      const id = await turnOf(model, { modelRetries: 0, logger: log.logger });
      await server!.runtime.idle();
      expect((await server!.snapshot(id)).error).toEqual(said);
      expect(log.warnings.join("\n")).toContain((failure as Error).message);
      await server!.close();
    }
  });

  it("is not tried again when the provider refused it, nor with modelRetries 0", async () => {
    const refused = new APICallError({ message: "Bad", url: "u", requestBodyValues: {}, statusCode: 400 });
    const first = modelOf([() => Promise.reject(refused)]);
    const id = await turnOf(first.model, { modelRetryDelayMs: 1 });
    await server!.runtime.idle();
    expect((await server!.snapshot(id)).error).toEqual({ code: "model_400", message: "Bad" });
    expect(first.signals).toHaveLength(1);
    await server!.close();

    const second = modelOf([() => Promise.reject(overloaded())]);
    const again = await turnOf(second.model, { modelRetries: 0 });
    await server!.runtime.idle();
    expect((await server!.snapshot(again)).error?.code).toBe("model_529");
    expect(second.signals).toHaveLength(1);
  });

  it("heeds the provider's retry-after-ms over its own backoff", async () => {
    const { model, signals } = modelOf([() => Promise.reject(overloaded({ "retry-after-ms": "20" }))]);
    const log = keptLog();
    const id = await turnOf(model, { modelRetryDelayMs: 60_000, logger: log.logger });
    await server!.runtime.idle();
    expect((await lastReply(id)).text).toBe("Recovered.");
    expect(signals).toHaveLength(2);
    expect(log.warnings[0]).toContain("trying again in 20 ms");
  });

  it("ends the turn at once, cancelled, when the person stops it during the wait", async () => {
    const { model, signals } = modelOf([() => Promise.reject(overloaded())]);
    const log = keptLog();
    const id = await turnOf(model, { modelRetryDelayMs: 60_000, logger: log.logger });
    await expect.poll(() => log.warnings.length).toBe(1);
    const { body } = await server!.call("GET", `/sessions/${id}`);
    expect(body.status).toBe("running");
    const cancel = await server!.call("POST", `/sessions/${id}/cancel`, {});
    expect(cancel.status).toBe(202);
    await server!.runtime.idle();
    const events = await server!.events(id);
    expect(events.at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(signals).toHaveLength(1);
  });
});

describe("an error the model's stream sends", () => {
  /** A stream of `parts`, then the error part a provider sends for an overload: a plain object, not an Error. */
  const overloadedStream = (parts: LanguageModelV4StreamPart[]) =>
    new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.enqueue({
          type: "error",
          error: { message: "Overloaded", statusCode: 529, isRetryable: true, data: { type: "overloaded_error" } },
        });
        controller.close();
      },
    });

  it("is retried when it comes before any text, though it is a plain object", async () => {
    const before: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "r1" },
      { type: "text-start", id: "t" },
    ];
    const { model, signals } = modelOf([() => ({ stream: overloadedStream(before) })]);
    const id = await turnOf(model, { modelRetryDelayMs: 1 });
    await server!.runtime.idle();
    const { snapshot, text } = await lastReply(id);
    expect(snapshot.error).toBeUndefined();
    expect(text).toBe("Recovered.");
    expect(signals).toHaveLength(2);
  });

  it("fails the turn with its status and message when it comes after text", async () => {
    const { model, signals } = modelOf([() => ({ stream: overloadedStream(hello) })]);
    const id = await turnOf(model, { modelRetryDelayMs: 1 });
    await server!.runtime.idle();
    const { snapshot, text } = await lastReply(id);
    expect(snapshot.error).toEqual({
      code: "model_529",
      message: "The model provider is overloaded or unavailable right now; try again in a moment.",
    });
    expect(text).toBe("Hello, ");
    expect(signals).toHaveLength(1);
  });
});

describe("a runtime that closes while a model call waits to be tried again", () => {
  it("closes at once, calls the model no more, and the next start makes the call", async () => {
    const dir = tempDir();
    const path = join(dir.path, "hitl.sqlite");
    const first = modelOf([() => Promise.reject(overloaded())]);
    const log = keptLog();
    const store = sqliteStore(path);
    const runtime = createAgentRuntime({ model: first.model, store, logger: log.logger, modelRetryDelayMs: 60_000 });
    const { sessionId } = await runtime.createSession({ owner: "ada" });
    await runtime.sendMessage(sessionId, "go");
    await expect.poll(() => log.warnings.length).toBe(1);
    await runtime.close(); // well before the minute the retry waits
    await store.close();
    expect(first.signals).toHaveLength(1);
    expect(log.warnings[1]).toContain("the runtime closed before a failed model call was tried again");

    const again = sqliteStore(path);
    const next = createAgentRuntime({ model: scriptedModel([{ text: "Recovered." }]), store: again, logger: quiet });
    await next.ready;
    await next.idle();
    const snapshot = await next.getSnapshot(sessionId);
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    await next.close();
    await again.close();
    dir.cleanup();
  });
});

describe("a model that stalls", () => {
  it("is stopped and tried again when it sent nothing yet, even if it ignores its signal", async () => {
    const silent = stalledStream();
    const hanging = new Promise<never>(() => {}); // answers nothing, not even its headers
    const { model, signals } = modelOf([() => ({ stream: silent.stream }), () => hanging]);
    const log = keptLog();
    const id = await turnOf(model, { modelStallMs: 50, modelRetryDelayMs: 1, logger: log.logger });
    await server!.runtime.idle();
    expect((await lastReply(id)).text).toBe("Recovered.");
    expect(signals).toHaveLength(3);
    expect(signals.slice(0, 2).map((signal) => signal.aborted)).toEqual([true, true]);
    expect(silent.cancelled()).toBe(true);
    expect(log.warnings[0]).toContain("The model sent nothing for 50 ms after it was called");
  });

  it("fails the turn with model_stalled when it stalls mid-reply, keeping what it streamed", async () => {
    const stalled = stalledStream(hello);
    const { model, signals } = modelOf([() => ({ stream: stalled.stream })]);
    const id = await turnOf(model, { modelStallMs: 50, modelRetryDelayMs: 1 });
    await server!.runtime.idle();
    const { snapshot, text } = await lastReply(id);
    expect(snapshot.error).toEqual({
      code: "model_stalled",
      message:
        "The model sent nothing for 50 ms in the middle of its reply, so the call was stopped (the runtime's modelStallMs).",
    });
    expect(text).toBe("Hello, ");
    expect(snapshot.status).toBe("idle");
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(stalled.cancelled()).toBe(true);
  });

  it("is not stopped while it keeps sending, however long the reply", async () => {
    const model = scriptedModel([{ text: "one two three four five six seven eight" }], { chunkDelayMs: 30 });
    const id = await turnOf(model, { modelStallMs: 100 });
    await server!.runtime.idle();
    const { snapshot, text } = await lastReply(id);
    expect(snapshot.error).toBeUndefined();
    expect(text).toBe("one two three four five six seven eight");
  });

  it("stops at once on Stop even when the model ignores its signal", async () => {
    const stalled = stalledStream(hello);
    const { model } = modelOf([() => ({ stream: stalled.stream })]);
    const id = await turnOf(model); // the default stall (two minutes) is not what ends it
    await expect.poll(async () => (await lastReply(id)).text).toBe("Hello, ");
    await server!.call("POST", `/sessions/${id}/cancel`, {});
    await server!.runtime.idle();
    expect((await server!.events(id)).at(-1)).toMatchObject({ type: "turn.cancelled" });
    expect(stalled.cancelled()).toBe(true);
  });
});

describe("against a provider's API", () => {
  async function runOn(provider: "anthropic" | "openai", replies: FakeReply[], options = {}) {
    const fake = await (provider === "anthropic" ? startFakeAnthropic : startFakeOpenAI)({ replies });
    fakes.push(fake);
    const model =
      provider === "anthropic"
        ? createAnthropic({ baseURL: fake.baseURL, apiKey: "test" })("claude-x")
        : createOpenAI({ baseURL: fake.baseURL, apiKey: "test" }).chat("gpt-x");
    const id = await turnOf(model, { modelRetryDelayMs: 1, ...options });
    await server!.runtime.idle();
    return { fake, id, ...(await lastReply(id)), events: await server!.events(id) };
  }

  it.each(["anthropic", "openai"] as const)(
    "%s: a 529 and a 429 are retried, and the reply arrives once",
    async (provider) => {
      const { fake, text, snapshot, events } = await runOn(provider, [
        { fail: { status: 529, message: "Overloaded" } },
        { fail: { status: 429, message: "Slow down", headers: { "retry-after": "0" } } },
        { text: "Here you are." },
      ]);
      expect(fake.requests.map((request) => request.status)).toEqual([529, 429, 200]);
      expect(snapshot.error).toBeUndefined();
      expect(text).toBe("Here you are.");
      expect(events.filter((event) => event.type === "message.started")).toHaveLength(2);
      expect(checkOneResultPerCall(events)).toEqual([]);
    },
  );

  it("anthropic: an overloaded_error event after message_start is retried; after text it fails the turn as model_529", async () => {
    const retried = await runOn("anthropic", [{ text: "Never shown.", overloadAfter: 1 }, { text: "Here you are." }]);
    expect(retried.fake.requests).toHaveLength(2);
    expect(retried.snapshot.error).toBeUndefined();
    expect(retried.text).toBe("Here you are.");
    await server!.close();
    server = undefined;

    const failed = await runOn("anthropic", [{ text: "Cut short, sadly.", overloadAfter: 5 }]);
    expect(failed.fake.requests).toHaveLength(1);
    expect(failed.snapshot.error).toEqual({
      code: "model_529",
      message: "The model provider is overloaded or unavailable right now; try again in a moment.",
    });
    expect(failed.text!.length).toBeGreaterThan(0);
  });

  it.each(["anthropic", "openai"] as const)(
    "%s: a stream stalled mid-reply is closed and fails the turn",
    async (provider) => {
      const { fake, text, snapshot } = await runOn(provider, [{ text: "A long answer, cut short.", stallAfter: 4 }], {
        modelStallMs: 200,
      });
      expect(snapshot.error?.code).toBe("model_stalled");
      expect(text!.length).toBeGreaterThan(0);
      expect("A long answer, cut short.".startsWith(text!)).toBe(true);
      await expect.poll(() => fake.requests[0]?.left).toBe(true);
      expect(fake.requests).toHaveLength(1);
    },
  );
});

describe("modelRetryDelay", () => {
  const retryable = (headers?: Record<string, string>) =>
    Object.assign(new Error("x"), { isRetryable: true, responseHeaders: headers });

  it("doubles the delay per attempt for what the provider says is retryable, and a stall", () => {
    expect([0, 1, 2].map((attempt) => modelRetryDelay(retryable(), attempt, 100))).toEqual([100, 200, 400]);
    expect(modelRetryDelay(new ModelStalled(10, false), 1, 100)).toBe(200);
  });

  it("retries nothing else", () => {
    expect(modelRetryDelay(new Error("x"), 0, 100)).toBeUndefined();
    expect(modelRetryDelay(Object.assign(new Error("x"), { isRetryable: false }), 0, 100)).toBeUndefined();
    expect(modelRetryDelay("a string", 0, 100)).toBeUndefined();
    expect(modelRetryDelay(undefined, 0, 100)).toBeUndefined();
  });

  it("heeds retry-after-ms, then retry-after in seconds or as a date, up to a minute", () => {
    expect(modelRetryDelay(retryable({ "retry-after-ms": "250", "retry-after": "9" }), 0, 100)).toBe(250);
    expect(modelRetryDelay(retryable({ "retry-after": "3" }), 0, 100)).toBe(3000);
    const soon = new Date(Date.now() + 10_000).toUTCString();
    expect(modelRetryDelay(retryable({ "retry-after": soon }), 0, 100)).toBeGreaterThan(8_000);
    // A longer wait is waited for a minute: trying again at once is what the provider refused.
    expect(modelRetryDelay(retryable({ "retry-after": "3600" }), 0, 100)).toBe(60_000);
    expect(modelRetryDelay(retryable({ "retry-after-ms": "90000" }), 0, 100)).toBe(60_000);
    expect(modelRetryDelay(retryable({ "retry-after": "soon" }), 0, 100)).toBe(100);
    expect(modelRetryDelay(retryable({ "retry-after-ms": "-5" }), 1, 100)).toBe(200);
    expect(modelRetryDelay(retryable({ "retry-after-ms": "abc", "retry-after": "2" }), 0, 100)).toBe(2000);
    expect(modelRetryDelay(retryable({ "Retry-After": "4" }), 0, 100)).toBe(4000);
  });

  it("never waits longer than a timer can (a longer timer fires at once)", () => {
    expect(modelRetryDelay(retryable(), 30, 2_000)).toBe(2 ** 31 - 1);
  });
});

describe("the options", () => {
  const make = (options: object) => () =>
    createAgentRuntime({ model: scriptedModel([]), store: memoryStore(), ...options });

  it("refuses what is not a count or a duration, naming the option", () => {
    expect(make({ modelRetries: -1 })).toThrow(/modelRetries must be a whole number, 0 or more/);
    expect(make({ modelRetries: 1.5 })).toThrow(/modelRetries/);
    expect(make({ modelRetryDelayMs: Number.NaN })).toThrow(/modelRetryDelayMs must be a finite number/);
    expect(make({ modelRetryDelayMs: Number.POSITIVE_INFINITY })).toThrow(/modelRetryDelayMs/);
    expect(make({ modelStallMs: 0 })).toThrow(/modelStallMs must be more than 0 milliseconds/);
    expect(make({ modelStallMs: Number.NaN })).toThrow(/modelStallMs/);
  });

  it("takes Infinity as no stall limit", async () => {
    await expect(make({ modelStallMs: Number.POSITIVE_INFINITY, modelRetries: 0 })().close()).resolves.toBeUndefined();
  });
});
