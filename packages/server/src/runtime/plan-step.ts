import { approvalAnswerSchema, type EventInput, type InputRequest, toJsonSchema, validate } from "@hitl-kit/protocol";
import { promptFor, requiresApproval } from "@hitl-kit/protocol/internal";
import type { RequestRecord, ToolCallRecord } from "../store/records.js";
import { cutText } from "./cut-text.js";
import { randomId } from "./ids.js";
import type { ModelToolCall } from "./model-step.js";
import { schemaHash } from "./schema-hash.js";
import type { RegisteredTool } from "./tool-registry.js";

/** What committing a step writes: its calls, the requests it parks, and their events. */
export interface StepPlan {
  calls: ToolCallRecord[];
  requests: RequestRecord[];
  events: EventInput[];
}

interface PlanOptions {
  calls: ModelToolCall[];
  messageId: string;
  turnId: string;
  step: number;
  tools: Map<string, RegisteredTool>;
  approvedTools: ReadonlySet<string>;
  /** When a parked request expires (epoch ms), or `undefined` for never. */
  expiresAt: (call: { toolName: string; input: unknown }) => number | undefined;
}

/**
 * Decides each tool call of a step: a call to an unknown tool or with invalid input gets
 * its one (error) result at once; a client tool, or a server tool whose approval policy
 * asks, parks a request; any other call is ready to execute.
 */
export async function planStep(options: PlanOptions): Promise<StepPlan> {
  const { calls, messageId, turnId, step, tools } = options;
  const plan: StepPlan = { calls: [], requests: [], events: [] };
  const results: EventInput[] = [];
  const parked: InputRequest[] = [];

  for (const [index, call] of calls.entries()) {
    const base = { toolCallId: call.toolCallId, turnId, step, index, toolName: call.toolName, messageId };
    plan.events.push({
      type: "tool.called",
      messageId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input ?? call.inputText,
    });
    const failure = (message: string, issues?: unknown) => {
      const output = issues === undefined ? { message } : { message, issues };
      plan.calls.push({ ...base, input: call.input ?? call.inputText, state: "done", outcome: "error", output });
      results.push({ type: "tool.result", toolCallId: call.toolCallId, outcome: "error", output });
    };

    const tool = tools.get(call.toolName);
    if (!tool) {
      failure(`There is no tool named "${call.toolName}". Available tools: ${[...tools.keys()].join(", ")}.`);
      continue;
    }
    if (call.input === undefined) {
      failure(`The input of ${call.toolName} is not valid JSON: ${cutText(call.inputText, 200)}`);
      continue;
    }
    const checked = await validate(tool.definition.inputSchema, call.input);
    if (!checked.ok) {
      const detail = checked.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ");
      failure(`The input of ${call.toolName} is invalid: ${detail}`, checked.issues);
      continue;
    }
    const input = checked.value;
    const definition = tool.definition;
    const kind =
      definition.kind === "client"
        ? "input"
        : requiresApproval(definition.approval, {
              toolName: call.toolName,
              input,
              approvedTools: options.approvedTools,
            })
          ? "approval"
          : undefined;
    if (!kind) {
      plan.calls.push({ ...base, input, state: "ready" });
      continue;
    }
    const answerSchema = toJsonSchema(definition.kind === "client" ? definition.answerSchema : approvalAnswerSchema);
    const requestId = randomId("req");
    const expiresAt = options.expiresAt({ toolName: call.toolName, input });
    const prompt = promptFor(definition, input);
    const request: InputRequest = {
      requestId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind,
      input,
      answerSchema,
      ...(prompt === undefined ? {} : { prompt }),
      ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
    };
    parked.push(request);
    plan.calls.push({ ...base, input, state: "parked", requestId });
    plan.requests.push({
      requestId,
      toolCallId: call.toolCallId,
      turnId,
      request,
      schemaHash: schemaHash(answerSchema),
      state: "open",
      parkedAt: Date.now(),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
  }
  plan.events.push(...results, { type: "message.completed", messageId });
  if (parked.length > 0) plan.events.push({ type: "input.requested", requests: parked });
  return plan;
}

type ExpireAfter = number | ((call: { toolName: string; input: unknown }) => number | undefined) | undefined;

/** How long a request parked for the call lives, by the runtime's `expireAfter` (milliseconds; `undefined`: forever). */
export function expiryAfter(option: ExpireAfter, call: { toolName: string; input: unknown }) {
  return typeof option === "function" ? option(call) : option;
}

/** When a request parked for the call now expires (epoch ms), by the runtime's `expireAfter`; `undefined`: never. */
export function expiryOf(option: ExpireAfter, call: { toolName: string; input: unknown }) {
  const after = expiryAfter(option, call);
  return after === undefined ? undefined : Date.now() + after;
}
