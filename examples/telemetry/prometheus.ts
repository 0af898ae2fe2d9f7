import type { RuntimeTelemetry } from "@hitl-kit/server";
import { Counter, Gauge, Histogram, type Registry, register } from "prom-client";

/** hitl-kit's telemetry as Prometheus metrics in `registry` (prom-client's default one unless given). */
export function prometheusTelemetry(registry: Registry = register): RuntimeTelemetry {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers });
  const seconds = [0.05, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300];
  const waits = [5, 15, 60, 300, 900, 3600, 14_400, 86_400];

  const turnsStarted = counter("hitl_turns_started_total", "Runs of turns started, by cause.", ["cause"]);
  const turnSeconds = histogram("hitl_turn_duration_seconds", "Runs of turns, by outcome.", ["outcome"], seconds);
  const modelSeconds = histogram("hitl_model_call_duration_seconds", "Model calls.", ["model", "outcome"], seconds);
  const modelRetries = counter("hitl_model_call_retries_total", "Model calls tried again.", ["model", "error"]);
  const tokens = counter("hitl_model_tokens_total", "Tokens the models reported.", ["model", "type"]);
  const toolSeconds = histogram("hitl_tool_duration_seconds", "Server tools' work.", ["tool", "outcome"], seconds);
  const parked = counter("hitl_requests_parked_total", "Requests parked for a person.", ["tool", "kind"]);
  const waitSeconds = histogram("hitl_request_wait_seconds", "How long requests waited.", ["tool", "action"], waits);
  const storeFailures = counter("hitl_store_unavailable_total", "Store calls that failed.", ["operation"]);
  const openStreams = new Gauge({ name: "hitl_event_streams_open", help: "Event streams open.", registers });

  return {
    onTurnStart: ({ cause }) => turnsStarted.inc({ cause }),
    onTurnFinish: ({ outcome, durationMs }) => turnSeconds.observe({ outcome }, durationMs / 1000),
    onModelCallFinish: (call) => {
      modelSeconds.observe({ model: call.modelId, outcome: call.outcome }, call.durationMs / 1000);
      if (call.outcome === "error" && call.retryInMs !== undefined) {
        modelRetries.inc({ model: call.modelId, error: call.error.code });
      }
      if (call.outcome !== "ok") return;
      const { inputTokens, outputTokens } = call.usage ?? {};
      if (inputTokens !== undefined) tokens.inc({ model: call.modelId, type: "input" }, inputTokens);
      if (outputTokens !== undefined) tokens.inc({ model: call.modelId, type: "output" }, outputTokens);
    },
    onToolCallFinish: ({ toolName, outcome, durationMs }) =>
      toolSeconds.observe({ tool: toolName, outcome }, durationMs / 1000),
    onRequestParked: ({ toolName, kind }) => parked.inc({ tool: toolName, kind }),
    onRequestSettled: ({ toolName, action, waitedMs }) => {
      if (waitedMs !== undefined) waitSeconds.observe({ tool: toolName, action }, waitedMs / 1000);
    },
    onStoreUnavailable: ({ operation }) => storeFailures.inc({ operation }),
    onEventStreamsChange: ({ open }) => openStreams.set(open),
  };
}
