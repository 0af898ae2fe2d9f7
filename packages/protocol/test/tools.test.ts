import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromReactiveAgentsTool, fromVellumTool } from "../src/convert.js";
import {
  always,
  askQuestion,
  defineClientTool,
  defineTool,
  never,
  once,
  toJsonSchema,
  validate,
} from "../src/index.js";
import { canPark, indexTools, promptFor, requiresApproval } from "../src/internal.js";

const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: ({ input }) => input.amount > 1000,
  prompt: (input) => `Refund ${input.amount} on ${input.chargeId}?`,
});

const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.object({ id: z.string() })) }),
  answerSchema: z.object({ templateId: z.string() }),
});

const none = new Set<string>();

describe("tool definitions", () => {
  it("defines a server tool with a normalised approval policy", () => {
    expect(refund).toMatchObject({ kind: "server", name: "refund_charge", approval: { mode: "when" } });
    expect(defineTool({ name: "lookup", description: "d", inputSchema: z.object({}) }).approval).toEqual(never());
    expect(canPark(refund)).toBe(true);
    expect(canPark(pickTemplate)).toBe(true);
    expect(canPark(defineTool({ name: "lookup", description: "d", inputSchema: z.object({}) }))).toBe(false);
  });

  it("builds the prompt from the input, and survives a prompt that throws", () => {
    expect(promptFor(refund, { chargeId: "ch_1", amount: 1200 })).toBe("Refund 1200 on ch_1?");
    expect(promptFor(refund, undefined)).toBeUndefined();
    expect(promptFor(pickTemplate, {})).toBeUndefined();
  });

  it("refuses a name model providers would reject", () => {
    expect(() => defineTool({ name: "refund charge!", description: "d", inputSchema: {} })).toThrow(
      /Tool name "refund charge!"/,
    );
  });

  it("refuses two tools with one name, naming it", () => {
    expect(() => indexTools([refund, { ...pickTemplate, name: "refund_charge" } as never])).toThrow(
      'Two tools are named "refund_charge"',
    );
    expect([...indexTools({ refund, pickTemplate }).keys()]).toEqual(["refund_charge", "pick_template"]);
  });
});

describe("approval policies", () => {
  const ctx = (input: unknown, approved: string[] = []) => ({
    toolName: "refund_charge",
    input,
    approvedTools: new Set(approved),
  });

  it("always asks, never does not", () => {
    expect(requiresApproval(always(), ctx({}))).toBe(true);
    expect(requiresApproval(never(), ctx({}))).toBe(false);
  });

  it("once asks until the tool has been approved in the session", () => {
    expect(requiresApproval(once(), ctx({}))).toBe(true);
    expect(requiresApproval(once(), ctx({}, ["other_tool"]))).toBe(true);
    expect(requiresApproval(once(), ctx({}, ["refund_charge"]))).toBe(false);
  });

  it("asks a predicate about the input", () => {
    expect(requiresApproval(refund.approval, ctx({ chargeId: "c", amount: 1001 }))).toBe(true);
    expect(requiresApproval(refund.approval, ctx({ chargeId: "c", amount: 10 }))).toBe(false);
  });

  it("fails closed on a missing input or a predicate that throws", () => {
    expect(requiresApproval(refund.approval, ctx(undefined))).toBe(true);
    expect(requiresApproval(refund.approval, ctx(null))).toBe(true);
    const throwing = defineTool({
      name: "t",
      description: "d",
      inputSchema: z.object({ a: z.object({ b: z.number() }) }),
      approval: ({ input }) => input.a.b > 1,
    });
    expect(requiresApproval(throwing.approval, { toolName: "t", input: {} as never, approvedTools: none })).toBe(true);
  });
});

describe("askQuestion()", () => {
  it("asks a question and answers with { answer }", async () => {
    const ask = askQuestion();
    expect(ask).toMatchObject({ kind: "client", name: "ask_question" });
    expect(promptFor(ask, { question: "Which city?" })).toBe("Which city?");
    expect((await validate(ask.answerSchema, { answer: "Oslo" })).ok).toBe(true);
    expect((await validate(ask.answerSchema, { answer: "" })).ok).toBe(false);
  });

  it("widens its input with extra typed fields", async () => {
    const ask = askQuestion({ inputSchema: z.object({ urgency: z.enum(["low", "high"]) }) });
    expect(toJsonSchema(ask.inputSchema)).toMatchObject({
      properties: { question: { type: "string" }, urgency: { enum: ["low", "high"] } },
      required: expect.arrayContaining(["question", "urgency"]),
    });
    expect((await validate(ask.inputSchema, { question: "Now?", urgency: "high" })).ok).toBe(true);
    expect((await validate(ask.inputSchema, { question: "Now?" })).ok).toBe(false);
  });

  it("refuses an extra field that would replace a built-in one", () => {
    expect(() => askQuestion({ inputSchema: z.object({ question: z.number() }) })).toThrow(/"question" is built in/);
  });
});

describe("porting tools", () => {
  const input_schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

  it.each([
    ["low", "never"],
    ["medium", "once"],
    ["high", "always"],
  ] as const)("maps a Vellum tool of %s risk to %s()", (defaultRiskLevel, mode) => {
    const tool = fromVellumTool({ name: "read_file", description: "Read a file.", input_schema, defaultRiskLevel });
    expect(tool).toMatchObject({ kind: "server", name: "read_file", inputSchema: input_schema, approval: { mode } });
  });

  it("refuses an unknown Vellum risk level", () => {
    expect(() =>
      fromVellumTool({ name: "x", description: "d", input_schema, defaultRiskLevel: "extreme" as never }),
    ).toThrow(/unknown defaultRiskLevel "extreme"/);
  });

  it.each([
    [{ requiresApproval: true, riskLevel: "low" }, "always"],
    [{ requiresApproval: false, riskLevel: "critical" }, "never"],
    [{ riskLevel: "critical" }, "always"],
    [{ riskLevel: "medium" }, "once"],
    [{}, "never"],
  ] as const)("maps a reactive-agents tool %j to %s()", (flags, mode) => {
    const tool = fromReactiveAgentsTool({ name: "rm", description: "Remove.", parameters: input_schema, ...flags });
    expect(tool.approval).toEqual({ mode });
  });
});
