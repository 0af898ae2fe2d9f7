import type { LanguageModelV4 } from "@ai-sdk/provider";
import { defineTool } from "@hitl-kit/protocol";
import { type Attributes, context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Registry } from "prom-client";
import { describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
// The adapters the server README shows (readme-examples.test.ts checks they are the same text).
import { openTelemetry } from "../../../examples/telemetry/open-telemetry.js";
import { prometheusTelemetry } from "../../../examples/telemetry/prometheus.js";
import { createAgentRuntime, implement, memoryStore, type RuntimeTelemetry, scriptedModel } from "../src/index.js";
import { quiet, startServer } from "./harness.js";
import { flakyReads, reportingModel } from "./telemetry-fixtures.js";

/**
 * A real turn through the fetch handler, with an event stream open: its first run looks up
 * the weather (after a model call that fails once and is tried again) and parks on a
 * template; the person picks one and the second run completes. The store fails one health
 * check. Answers with the stream still open.
 */
async function runTurn(telemetry: RuntimeTelemetry) {
  const scripted = reportingModel([
    { toolCalls: [{ toolName: "lookup_weather", input: { city: "Paris" } }] },
    { text: "Pick one.", toolCalls: [{ toolName: "pick_template", input: { templates: ["calm", "bold"] } }] },
    { text: "Done." },
  ]);
  let overloaded = true;
  const model: LanguageModelV4 = {
    ...scripted,
    async doStream(call) {
      if (!overloaded) return scripted.doStream(call);
      overloaded = false;
      throw Object.assign(new Error("Service unavailable"), { statusCode: 503, isRetryable: true });
    },
  };
  const { store, state } = flakyReads();
  const server = startServer(model, { store, modelRetryDelayMs: 0, telemetry });
  const sessionId = await server.session();
  const stream = await server.send(`/sessions/${sessionId}/events`);
  await server.call("POST", `/sessions/${sessionId}/messages`, { text: "weather, then a poster" });
  await server.runtime.idle();
  const [request] = (await server.snapshot(sessionId)).pending;
  await server.call("POST", `/sessions/${sessionId}/responses`, {
    responses: [{ requestId: request!.requestId, action: "accept", value: { templateId: "calm" } }],
  });
  await server.runtime.idle();
  state.down = true;
  await server.runtime.health();
  state.down = false;
  return {
    sessionId,
    async close() {
      await stream.body?.cancel();
      await server.close();
    },
  };
}

/** A reader that collects the meter's metrics when asked. */
class CollectingReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

describe("the README's OpenTelemetry adapter", () => {
  it("traces each run of a turn as an invoke_agent span with its chat and execute_tool spans as children, and records the metrics", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const reader = new CollectingReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const turn = await runTurn(openTelemetry(tracer, meter));

    const spans = exporter.getFinishedSpans();
    const runs = spans.filter((span) => span.name === "invoke_agent");
    expect(runs.map((span) => span.attributes)).toEqual([
      {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": turn.sessionId,
        "hitl_kit.turn.id": expect.stringMatching(/^turn_/),
        "hitl_kit.turn.cause": "message",
        "hitl_kit.turn.outcome": "waiting",
      },
      {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": turn.sessionId,
        "hitl_kit.turn.id": runs[0]!.attributes["hitl_kit.turn.id"],
        "hitl_kit.turn.cause": "responses",
        "hitl_kit.turn.outcome": "completed",
      },
    ]);
    const childrenOf = (run: ReadableSpan) =>
      spans
        .filter((span) => span.parentSpanContext?.spanId === run.spanContext().spanId)
        .map((span) => {
          expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
          return `${span.name}${span.status.code === SpanStatusCode.ERROR ? ` (${span.attributes["error.type"]})` : ""}`;
        });
    expect(childrenOf(runs[0]!)).toEqual([
      "chat test-model (model_503)",
      "chat test-model",
      "execute_tool lookup_weather",
      "chat test-model",
    ]);
    expect(childrenOf(runs[1]!)).toEqual(["chat test-model"]);
    // Every span is a run or a child of one.
    expect(spans).toHaveLength(7);
    expect(runs.every((run) => run.parentSpanContext === undefined)).toBe(true);

    const parked = spans.filter((span) => span.name === "chat test-model")[2]!;
    expect(parked.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "test",
      "gen_ai.request.model": "test-model",
      "hitl_kit.step": 2,
      "hitl_kit.attempt": 0,
      "gen_ai.response.finish_reasons": ["tool-calls"],
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.response.id": "resp_2",
      "gen_ai.response.model": "test-model-2026",
    });
    const tool = spans.find((span) => span.name === "execute_tool lookup_weather")!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.name": "lookup_weather",
      "gen_ai.tool.call.id": expect.any(String),
    });

    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const points = new Map(
      resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .map((metric) => [metric.descriptor.name, metric.dataPoints as DataPoint<number | Histogram>[]]),
    );
    const find = (name: string, attributes: Attributes = {}) =>
      points
        .get(name)
        ?.filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value));
    const histogram = (name: string, attributes?: Attributes) =>
      find(name, attributes)?.map((point) => {
        const { count, sum } = point.value as Histogram;
        return { count, sum };
      });
    expect(histogram("gen_ai.client.token.usage", { "gen_ai.token.type": "input" })).toEqual([{ count: 3, sum: 33 }]);
    expect(histogram("gen_ai.client.token.usage", { "gen_ai.token.type": "output" })).toEqual([{ count: 3, sum: 21 }]);
    expect(
      histogram("gen_ai.client.operation.duration")
        ?.map(({ count }) => count)
        .sort(),
    ).toEqual([1, 3]);
    expect(find("gen_ai.client.operation.duration", { "error.type": "model_503" })).toHaveLength(1);
    expect(histogram("gen_ai.execute_tool.duration")?.map(({ count }) => count)).toEqual([1]);
    expect(histogram("hitl_kit.turn.duration", { "hitl_kit.turn.outcome": "waiting" })?.[0]?.count).toBe(1);
    expect(histogram("hitl_kit.turn.duration", { "hitl_kit.turn.outcome": "completed" })?.[0]?.count).toBe(1);
    expect(histogram("hitl_kit.request.wait", { "hitl_kit.request.action": "accept" })?.[0]?.count).toBe(1);
    expect(find("hitl_kit.requests.parked")?.map((point) => point.value)).toEqual([1]);
    expect(find("hitl_kit.store.unavailable", { "hitl_kit.store.operation": "getSession" })?.[0]?.value).toBe(1);
    expect(find("hitl_kit.event_streams.open")?.map((point) => point.value)).toEqual([1]);
    await turn.close();
  });
  it("runs each tool with its execute_tool span current, so the spans the tool makes are its children", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    onTestFinished(() => context.disable());
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const lookup = defineTool({ name: "lookup_rate", description: "Looks up a rate.", inputSchema: z.object({}) });
    const runtime = createAgentRuntime({
      model: scriptedModel([{ toolCalls: [{ toolName: "lookup_rate", input: {} }] }, { text: "1.08." }]),
      tools: [
        implement(lookup, async () => {
          await Promise.resolve(); // across an await, as a tool's HTTP call would be
          tracer.startActiveSpan("GET rates.example", (span) => span.end());
          return { rate: 1.08 };
        }),
      ],
      store: memoryStore(),
      logger: quiet,
      telemetry: openTelemetry(tracer, new MeterProvider().getMeter("test")),
    });
    onTestFinished(() => runtime.close());
    const { sessionId } = await runtime.createSession();
    await runtime.sendMessage(sessionId, "rate?");
    await runtime.idle();
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.find((span) => span.name === name)!;
    expect(named("GET rates.example").parentSpanContext?.spanId).toBe(
      named("execute_tool lookup_rate").spanContext().spanId,
    );
    expect(named("execute_tool lookup_rate").parentSpanContext?.spanId).toBe(
      named("invoke_agent").spanContext().spanId,
    );
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe("the README's prom-client adapter", () => {
  it("counts and times turns, model calls, tools, requests, store failures and open streams", async () => {
    const registry = new Registry();
    const turn = await runTurn(prometheusTelemetry(registry));
    const text = await registry.metrics();
    const value = (series: string) => {
      const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('hitl_turns_started_total{cause="message"}')).toBe(1);
    expect(value('hitl_turns_started_total{cause="responses"}')).toBe(1);
    expect(value('hitl_turn_duration_seconds_count{outcome="waiting"}')).toBe(1);
    expect(value('hitl_turn_duration_seconds_count{outcome="completed"}')).toBe(1);
    expect(value('hitl_model_call_duration_seconds_count{model="test-model",outcome="ok"}')).toBe(3);
    expect(value('hitl_model_call_duration_seconds_count{model="test-model",outcome="error"}')).toBe(1);
    expect(value('hitl_model_call_retries_total{model="test-model",error="model_503"}')).toBe(1);
    expect(value('hitl_model_tokens_total{model="test-model",type="input"}')).toBe(33);
    expect(value('hitl_model_tokens_total{model="test-model",type="output"}')).toBe(21);
    expect(value('hitl_tool_duration_seconds_count{tool="lookup_weather",outcome="ok"}')).toBe(1);
    expect(value('hitl_requests_parked_total{tool="pick_template",kind="input"}')).toBe(1);
    expect(value('hitl_request_wait_seconds_count{tool="pick_template",action="accept"}')).toBe(1);
    expect(value('hitl_store_unavailable_total{operation="getSession"}')).toBe(1);
    expect(value("hitl_event_streams_open")).toBe(1);
    await turn.close();
  });
});
