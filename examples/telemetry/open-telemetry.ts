import type { RuntimeTelemetry, TelemetryError } from "@hitl-kit/server";
import {
  type Attributes,
  context,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/**
 * hitl-kit's telemetry as OpenTelemetry traces and metrics, named after the GenAI semantic
 * conventions: each run of a turn is an `invoke_agent` span, with its model calls (`chat`)
 * and tools (`execute_tool`) as child spans.
 */
export function openTelemetry(
  tracer: Tracer = trace.getTracer("hitl-kit"),
  meter: Meter = metrics.getMeter("hitl-kit"),
): RuntimeTelemetry {
  const turns = new Map<string, Span>(); // by turnId
  const modelCalls = new Map<string, Span>(); // by modelCallId
  const toolCalls = new Map<string, Span>(); // by toolCallId
  const operationDuration = meter.createHistogram("gen_ai.client.operation.duration", { unit: "s" });
  const tokenUsage = meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}" });
  const toolDuration = meter.createHistogram("gen_ai.execute_tool.duration", { unit: "s" });
  const turnDuration = meter.createHistogram("hitl_kit.turn.duration", { unit: "s" });
  const requestWait = meter.createHistogram("hitl_kit.request.wait", { unit: "s" });
  const requestsParked = meter.createCounter("hitl_kit.requests.parked");
  const storeUnavailable = meter.createCounter("hitl_kit.store.unavailable");
  let openStreams = 0;
  meter.createObservableGauge("hitl_kit.event_streams.open").addCallback((result) => result.observe(openStreams));

  /** A span under the turn's span (a root span when the turn's is not known here). */
  const childSpan = (turnId: string, name: string, kind: SpanKind, attributes: Attributes) => {
    const turn = turns.get(turnId);
    return tracer.startSpan(name, { kind, attributes }, turn && trace.setSpan(context.active(), turn));
  };
  const endSpan = (span: Span | undefined, error: TelemetryError | undefined) => {
    if (error) {
      span?.setAttribute("error.type", error.code);
      span?.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span?.end();
  };
  const take = (spans: Map<string, Span>, id: string) => {
    const span = spans.get(id);
    spans.delete(id);
    return span;
  };

  return {
    onTurnStart: ({ sessionId, turnId, cause }) => {
      const attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": sessionId,
        "hitl_kit.turn.id": turnId,
        "hitl_kit.turn.cause": cause,
      };
      turns.set(turnId, tracer.startSpan("invoke_agent", { kind: SpanKind.INTERNAL, attributes }));
    },
    onTurnFinish: ({ turnId, outcome, error, durationMs }) => {
      const span = take(turns, turnId);
      span?.setAttribute("hitl_kit.turn.outcome", outcome);
      endSpan(span, error);
      turnDuration.record(durationMs / 1000, { "hitl_kit.turn.outcome": outcome });
    },
    onModelCallStart: ({ modelCallId, turnId, provider, modelId, step, attempt }) => {
      const attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider.split(".")[0] ?? provider,
        "gen_ai.request.model": modelId,
        "hitl_kit.step": step,
        "hitl_kit.attempt": attempt,
      };
      modelCalls.set(modelCallId, childSpan(turnId, `chat ${modelId}`, SpanKind.CLIENT, attributes));
    },
    onModelCallFinish: (call) => {
      const span = take(modelCalls, call.modelCallId);
      const attributes: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": call.provider.split(".")[0] ?? call.provider,
        "gen_ai.request.model": call.modelId,
        ...(call.error ? { "error.type": call.error.code } : {}),
      };
      if (call.outcome === "ok") {
        const { finishReason, usage, responseId, responseModelId } = call;
        span?.setAttributes({
          ...(finishReason ? { "gen_ai.response.finish_reasons": [finishReason] } : {}),
          ...(usage?.inputTokens === undefined ? {} : { "gen_ai.usage.input_tokens": usage.inputTokens }),
          ...(usage?.outputTokens === undefined ? {} : { "gen_ai.usage.output_tokens": usage.outputTokens }),
          ...(responseId ? { "gen_ai.response.id": responseId } : {}),
          ...(responseModelId ? { "gen_ai.response.model": responseModelId } : {}),
        });
        if (usage?.inputTokens !== undefined) {
          tokenUsage.record(usage.inputTokens, { ...attributes, "gen_ai.token.type": "input" });
        }
        if (usage?.outputTokens !== undefined) {
          tokenUsage.record(usage.outputTokens, { ...attributes, "gen_ai.token.type": "output" });
        }
      }
      if (call.retryInMs !== undefined) span?.setAttribute("hitl_kit.retry_in_ms", call.retryInMs);
      operationDuration.record(call.durationMs / 1000, attributes);
      endSpan(span, call.error);
    },
    onToolCallStart: ({ turnId, toolCallId, toolName }) => {
      const attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": toolName,
        "gen_ai.tool.call.id": toolCallId,
      };
      toolCalls.set(toolCallId, childSpan(turnId, `execute_tool ${toolName}`, SpanKind.INTERNAL, attributes));
    },
    // The tool runs with its span current, so the spans it makes (its HTTP calls…) are children.
    runToolCall: ({ toolCallId }, run) => {
      const span = toolCalls.get(toolCallId);
      return span ? context.with(trace.setSpan(context.active(), span), run) : run();
    },
    onToolCallFinish: ({ toolCallId, toolName, error, durationMs }) => {
      endSpan(take(toolCalls, toolCallId), error);
      toolDuration.record(durationMs / 1000, {
        "gen_ai.tool.name": toolName,
        ...(error ? { "error.type": error.code } : {}),
      });
    },
    onRequestParked: ({ toolName, kind }) => {
      requestsParked.add(1, { "gen_ai.tool.name": toolName, "hitl_kit.request.kind": kind });
    },
    onRequestSettled: ({ toolName, action, waitedMs }) => {
      if (waitedMs === undefined) return;
      requestWait.record(waitedMs / 1000, { "gen_ai.tool.name": toolName, "hitl_kit.request.action": action });
    },
    onStoreUnavailable: ({ operation }) => {
      storeUnavailable.add(1, { "hitl_kit.store.operation": operation });
    },
    onEventStreamsChange: ({ open }) => {
      openStreams = open;
    },
  };
}
