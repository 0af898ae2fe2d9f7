import type { ToolOutcome, ToolPart } from "@hitl-kit/protocol";

/** The fields every {@link ToolCallState} has, whatever its `state`. */
export interface ToolCallBase<Input, Name extends string> {
  /** The call's id, as the model gave it. */
  toolCallId: string;
  /** The tool called. */
  toolName: Name;
  /** The arguments the model called it with. */
  input: Input;
  /** The parked request of the call, when it asked a person. */
  requestId?: string;
}

/**
 * One tool call of the transcript, as a renderer shows it: a union on `state`, so only a
 * finished call has its `output`.
 * - `running`: called, or answered and executing; no result yet.
 * - `done`: its one result is in and the tool succeeded (`outcome: "ok"`).
 * - `failed`: its one result is in and it did not succeed — the tool threw (`error`), or
 *   the person declined, cancelled or let the request expire; `output` says what happened.
 *
 * A call parked on a person (`awaiting-input` in the snapshot) is shown by its request's
 * widget instead, so it has no state here.
 */
export type ToolCallState<Input = unknown, Output = unknown, Name extends string = string> =
  | (ToolCallBase<Input, Name> & { state: "running"; outcome?: never; output?: never })
  | (ToolCallBase<Input, Name> & { state: "done"; outcome: "ok"; output: Output })
  | (ToolCallBase<Input, Name> & { state: "failed"; outcome: Exclude<ToolOutcome, "ok">; output: unknown });

/** The states a tool call renderer sees: `running`, `done` or `failed`. */
export type ToolCallStatus = ToolCallState["state"];

/**
 * The renderer's state of a transcript tool part; `undefined` for a call parked on a
 * person (render its request's widget instead).
 * @example
 * const state = toolCallStateOf(part);
 * if (state?.state === "done") show(state.output);
 */
export function toolCallStateOf(part: ToolPart): ToolCallState | undefined {
  const { toolCallId, toolName, input } = part;
  const base = { toolCallId, toolName, input, ...(part.requestId === undefined ? {} : { requestId: part.requestId }) };
  switch (part.state) {
    case "awaiting-input":
      return undefined;
    case "running":
      return { ...base, state: "running" };
    case "done":
      return part.outcome === "ok"
        ? { ...base, state: "done", outcome: "ok", output: part.output }
        : { ...base, state: "failed", outcome: part.outcome, output: part.output };
    default:
      return assertNever(part);
  }
}

function assertNever(value: never): never {
  throw new TypeError(`Unknown tool part state: ${JSON.stringify(value)}`);
}
