/**
 * What an approval predicate is told about a call. A call with no input never reaches a
 * predicate (it asks the person), so `input` is always there.
 */
export interface ApprovalContext<Input = unknown> {
  /** The tool called. */
  toolName: string;
  /** The call's input, validated by the tool's input schema. */
  input: Input;
  /** Names of tools the person has approved earlier in this session. */
  approvedTools: ReadonlySet<string>;
}

/** When a server tool's call must wait for a person's approval. */
export type ApprovalPolicy<Input = unknown> =
  | { mode: "always" }
  | { mode: "once" }
  | { mode: "never" }
  | { mode: "when"; predicate: (context: ApprovalContext<Input>) => boolean };

/** A policy, or a predicate that returns `true` when the call needs approval. */
export type ApprovalOption<Input = unknown> = ApprovalPolicy<Input> | ((context: ApprovalContext<Input>) => boolean);

/** Every call waits for the person's approval. */
export function always(): { mode: "always" } {
  return { mode: "always" };
}

/** The first call of this tool in a session waits for approval; once approved, later calls run. */
export function once(): { mode: "once" } {
  return { mode: "once" };
}

/** No call waits for approval (the default for `defineTool`). */
export function never(): { mode: "never" } {
  return { mode: "never" };
}

/** Normalises an {@link ApprovalOption} to a policy object. */
export function toApprovalPolicy<Input>(option: ApprovalOption<Input> | undefined): ApprovalPolicy<Input> {
  if (option === undefined) return { mode: "never" };
  if (typeof option === "function") return { mode: "when", predicate: option };
  return option;
}

/**
 * Decides whether a call needs approval. It fails closed: a predicate that throws, or is
 * asked about a call with no input, asks the person rather than letting the call run.
 */
export function requiresApproval<Input>(policy: ApprovalPolicy<Input>, context: ApprovalContext<unknown>): boolean {
  switch (policy.mode) {
    case "always":
      return true;
    case "never":
      return false;
    case "once":
      return !context.approvedTools.has(context.toolName);
    case "when":
      if (context.input === undefined || context.input === null) return true;
      try {
        return policy.predicate(context as ApprovalContext<Input>) !== false;
      } catch {
        return true;
      }
  }
}
