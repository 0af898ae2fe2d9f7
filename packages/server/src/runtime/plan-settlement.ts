import {
  approvalAnswerSchema,
  type EventInput,
  type InputResponse,
  ProtocolError,
  type ReasonCode,
  type SchemaLike,
  toJsonSchema,
  validate,
} from "@hitl-kit/protocol";
import { issueSummary } from "@hitl-kit/protocol/internal";
import { type RequestRecord, type Resolution, type ToolCallRecord, wireResolution } from "../store/records.js";
import { schemaHash } from "./schema-hash.js";
import { reasonCodeOf } from "./stop-reasons.js";
import type { RegisteredTool } from "./tool-registry.js";

/** The writes that settle one request: its resolution, its call's new state and their events. */
export interface Settlement {
  request: RequestRecord;
  call: ToolCallRecord;
  events: EventInput[];
  /** A tool the person approved, for `once()`. */
  approvedTool?: string;
}

/** A person's response, the clock's expiry, or the runtime's cancel with its reason's code. */
export type SettlementCause =
  | InputResponse
  | { action: "expire" }
  | { requestId: string; action: "cancel"; reason: string; reasonCode?: ReasonCode };

/** A request and what settles it. */
export interface PlanSettlementInput {
  record: RequestRecord;
  cause: SettlementCause;
}

/**
 * Checks a response against the request and decides what settling it writes. The value
 * is validated against the tool's current answer schema; if that schema changed since
 * the request was parked, a refusal says so.
 * @throws {ProtocolError} `invalid_answer` (422) when the value does not fit
 */
export async function planSettlement(
  record: RequestRecord,
  call: ToolCallRecord,
  tool: RegisteredTool | undefined,
  cause: SettlementCause,
  askSchema?: SchemaLike,
): Promise<Settlement> {
  const at = new Date().toISOString();
  const reason = "reason" in cause ? cause.reason : undefined;
  // The code of a reason the runtime gave, so a UI can say it in the person's language.
  const reasonCode =
    cause.action === "cancel" ? ("reasonCode" in cause && cause.reasonCode) || reasonCodeOf(reason) : undefined;
  const resolved = (given: Resolution, extra: Partial<ToolCallRecord>, events: EventInput[] = []) => {
    const resolution = reasonCode ? { ...given, reasonCode } : given;
    return {
      request: { ...record, state: "settled" as const, resolution },
      call: { ...call, ...extra },
      events: [
        {
          type: "input.resolved" as const,
          requestId: record.requestId,
          toolCallId: record.toolCallId,
          ...wireResolution(resolution),
        },
        ...events,
      ],
    };
  };
  const finished = (
    outcome: "declined" | "cancelled" | "expired" | "ok",
    output: unknown,
  ): Partial<ToolCallRecord> => ({
    state: "done",
    outcome,
    output,
  });
  const result = (outcome: "declined" | "cancelled" | "expired" | "ok", output: unknown): EventInput => ({
    type: "tool.result",
    toolCallId: record.toolCallId,
    outcome,
    output,
  });

  // A running tool's question: settling it answers the tool; the call keeps running.
  if (record.asked) return settleAsked(record, cause, at, askSchema, resolved);

  switch (cause.action) {
    case "expire": {
      const output = { expiresAt: record.request.expiresAt };
      return resolved({ action: "expire", at }, finished("expired", output), [result("expired", output)]);
    }
    case "cancel": {
      const output = { reason: reason ?? "The person cancelled the request." };
      return resolved(
        { action: "cancel", at, ...(reason === undefined ? {} : { reason }) },
        finished("cancelled", output),
        [result("cancelled", output)],
      );
    }
    case "decline": {
      const output = reason === undefined ? {} : { reason };
      return resolved({ action: "decline", at, ...output }, finished("declined", output), [result("declined", output)]);
    }
    case "accept":
      break;
  }

  const definition = tool?.definition;
  if (!definition) {
    const output = { message: `The tool ${record.request.toolName} is no longer available on this server.` };
    return resolved({ action: "accept", at, value: cause.value }, { state: "done", outcome: "error", output }, [
      { type: "tool.result", toolCallId: record.toolCallId, outcome: "error", output },
    ]);
  }
  const isApproval = record.request.kind === "approval";
  if (!isApproval && cause.value === undefined) {
    throw new ProtocolError("invalid_answer", `Accepting ${record.request.toolName} needs a value.`, [
      { path: [], message: "Required" },
    ]);
  }
  const schema = definition.kind === "client" && !isApproval ? definition.answerSchema : approvalAnswerSchema;
  const value = isApproval ? (cause.value ?? {}) : cause.value;
  const checked = await validate(schema, value);
  if (!checked.ok) {
    const changed = !isApproval && schemaHash(toJsonSchema(schema)) !== record.schemaHash;
    throw new ProtocolError(
      "invalid_answer",
      changed
        ? `The answer schema of ${record.request.toolName} changed since this request was parked, and the answer does not fit the new one (${issueSummary(checked.issues)}).`
        : `The answer does not fit the answer schema of ${record.request.toolName} (${issueSummary(checked.issues)}).`,
      checked.issues,
    );
  }
  // The answer as the person gave it, as a question's is: a schema that transforms gives its output to the tool only.
  const given = isApproval ? checked.value : cause.value;
  const accepted = { action: "accept" as const, at, value: given, ...(reason === undefined ? {} : { reason }) };
  if (isApproval) {
    // The approver's note, sent in the answer or beside it, reaches the tool (`ctx.approval.reason`).
    const inValue = (checked.value as { reason?: string }).reason;
    if (inValue !== undefined && reason !== undefined && inValue !== reason) {
      throw new ProtocolError(
        "bad_request",
        `This approval carries two different notes, one in value.reason and one beside it as reason: send the approver's note once.`,
      );
    }
    const note = inValue ?? reason;
    return {
      ...resolved(accepted, { state: "ready", answer: note === undefined ? {} : { reason: note } }),
      approvedTool: record.request.toolName,
    };
  }
  if (tool.resolve) return resolved(accepted, { state: "ready", answer: checked.value });
  return resolved(accepted, finished("ok", checked.value), [result("ok", checked.value)]);
}

/**
 * Settles a question a running tool asked (`ctx.ask`): only the request and its
 * `input.resolved`; the tool gets the answer and writes the call's result itself. The
 * answer is checked against the tool's own schema while the tool waits in this process,
 * else against the JSON Schema the request was parked with.
 */
async function settleAsked(
  record: RequestRecord,
  cause: SettlementCause,
  at: string,
  askSchema: SchemaLike | undefined,
  resolved: (resolution: Resolution, extra: Partial<ToolCallRecord>) => Settlement,
): Promise<Settlement> {
  const reason = "reason" in cause && cause.reason !== undefined ? { reason: cause.reason } : {};
  if (cause.action !== "accept") return resolved({ action: cause.action, at, ...reason }, {});
  if (cause.value === undefined) {
    throw new ProtocolError("invalid_answer", "Accepting this request needs a value.", [
      { path: [], message: "Required" },
    ]);
  }
  const checked = await validate(askSchema ?? record.request.answerSchema, cause.value);
  if (!checked.ok) {
    throw new ProtocolError(
      "invalid_answer",
      `The answer does not fit what ${record.request.toolName} asked for (${issueSummary(checked.issues)}).`,
      checked.issues,
    );
  }
  // The answer as the person gave it: the asking tool parses it with its schema (see `askResult`).
  return resolved({ action: "accept", at, value: cause.value, ...reason }, {});
}
