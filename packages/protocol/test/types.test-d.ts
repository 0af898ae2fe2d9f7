import type { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type ApprovalAnswer,
  askQuestion,
  type ClientToolDefinition,
  defineClientTool,
  defineTool,
  type Infer,
  jsonSchema,
  type ServerToolDefinition,
  type ToolAnswer,
  type ToolInput,
  type ToolName,
  validate,
} from "../src/index.js";

const Ratio = z.enum(["1:1", "16:9"]);

const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "d",
  inputSchema: z.object({ templates: z.array(z.object({ id: z.string() })) }),
  answerSchema: z.object({ templateId: z.string() }),
});
const pickRatio = defineClientTool({
  name: "pick_aspect_ratio",
  description: "d",
  inputSchema: v.object({ options: v.array(v.string()) }),
  answerSchema: v.object({ ratio: v.picklist(["1:1", "16:9"]) }),
});
const pickMedia = defineClientTool({
  name: "pick_media",
  description: "d",
  inputSchema: jsonSchema<{ folder: string }>({ type: "object" }),
  answerSchema: jsonSchema<{ mediaIds: string[] }>({ type: "object" }),
});
const refund = defineTool({
  name: "refund_charge",
  description: "d",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: ({ input }) => {
    expectTypeOf(input).toEqualTypeOf<{ chargeId: string; amount: number }>();
    return input.amount > 1000;
  },
});
const ask = askQuestion({ inputSchema: z.object({ urgency: Ratio }) });

describe("schema inference", () => {
  it("infers each schema flavour's value type", () => {
    expectTypeOf<Infer<typeof Ratio>>().toEqualTypeOf<"1:1" | "16:9">();
    expectTypeOf<Infer<v.PicklistSchema<["a", "b"], undefined>>>().toEqualTypeOf<"a" | "b">();
    expectTypeOf<Infer<ReturnType<typeof toStandardJsonSchema<v.StringSchema<undefined>>>>>().toEqualTypeOf<string>();
    expectTypeOf<Infer<ReturnType<typeof jsonSchema<{ n: number }>>>>().toEqualTypeOf<{ n: number }>();
    expectTypeOf<Infer<{ type: "object" }>>().toEqualTypeOf<unknown>();
  });

  it("types validate()'s value from the schema", async () => {
    const result = await validate(pickTemplate.answerSchema, {});
    if (result.ok) expectTypeOf(result.value).toEqualTypeOf<{ templateId: string }>();
  });
});

describe("tool maps", () => {
  const tools = { pickTemplate, pickRatio, pickMedia, refund, ask };
  type Tools = typeof tools;

  it("lists tool names, not object keys", () => {
    expectTypeOf<ToolName<Tools>>().toEqualTypeOf<
      "pick_template" | "pick_aspect_ratio" | "pick_media" | "refund_charge" | "ask_question"
    >();
  });

  it("gives each tool's input and answer type by name", () => {
    expectTypeOf<ToolInput<Tools, "pick_template">>().toEqualTypeOf<{ templates: { id: string }[] }>();
    expectTypeOf<ToolAnswer<Tools, "pick_template">>().toEqualTypeOf<{ templateId: string }>();
    expectTypeOf<ToolInput<Tools, "pick_aspect_ratio">>().toEqualTypeOf<{ options: string[] }>();
    expectTypeOf<ToolAnswer<Tools, "pick_aspect_ratio">>().toEqualTypeOf<{ ratio: "1:1" | "16:9" }>();
    expectTypeOf<ToolInput<Tools, "pick_media">>().toEqualTypeOf<{ folder: string }>();
    expectTypeOf<ToolAnswer<Tools, "pick_media">>().toEqualTypeOf<{ mediaIds: string[] }>();
    expectTypeOf<ToolInput<Tools, "refund_charge">>().toEqualTypeOf<{ chargeId: string; amount: number }>();
    expectTypeOf<ToolAnswer<Tools, "refund_charge">>().toEqualTypeOf<ApprovalAnswer>();
    expectTypeOf<ToolInput<Tools, "ask_question">>().toEqualTypeOf<{
      question: string;
      choices?: string[] | undefined;
      urgency: "1:1" | "16:9";
    }>();
    expectTypeOf<ToolAnswer<Tools, "ask_question">>().toEqualTypeOf<{ answer: string }>();
  });

  it("types an answer as the browser sends it: a transforming schema's input, its output for the tool", () => {
    const passenger = defineClientTool({
      name: "passenger",
      description: "d",
      inputSchema: z.object({}),
      answerSchema: z.object({ passport: z.string().transform((raw) => ({ raw })), seat: z.string().default("any") }),
    });
    const trip = defineTool({
      name: "trip",
      description: "d",
      inputSchema: z.object({}),
      asks: z.object({ count: z.string().transform(Number) }),
    });
    type Both = { passenger: typeof passenger; trip: typeof trip };
    expectTypeOf<ToolAnswer<Both, "passenger">>().toEqualTypeOf<{ passport: string; seat?: string | undefined }>();
    expectTypeOf<ToolAnswer<Both, "trip">>().toEqualTypeOf<ApprovalAnswer | { count: string }>();
    expectTypeOf<Infer<typeof passenger.answerSchema>>().toEqualTypeOf<{ passport: { raw: string }; seat: string }>();
  });

  it("works for an array of tools too", () => {
    const list = [pickTemplate, refund] as const;
    expectTypeOf<ToolName<typeof list>>().toEqualTypeOf<"pick_template" | "refund_charge">();
  });

  it("rejects a name that is not a tool", () => {
    // @ts-expect-error "pick_colour" is not one of the tools
    expectTypeOf<ToolInput<Tools, "pick_colour">>();
  });
});

describe("tool definition types", () => {
  it("take every tool of their kind without type arguments, for generic helpers", () => {
    const nameOfServerTool = <T extends ServerToolDefinition>(tool: T): T["name"] => tool.name;
    const prompted = defineTool({
      name: "prompted",
      description: "d",
      inputSchema: z.object({ to: z.string() }),
      approval: ({ input }) => input.to !== "",
      prompt: ({ to }) => `Write to ${to}?`,
    });
    expectTypeOf(nameOfServerTool(prompted)).toEqualTypeOf<"prompted">();
    const nameOfClientTool = <T extends ClientToolDefinition>(tool: T): T["name"] => tool.name;
    expectTypeOf(nameOfServerTool(refund)).toEqualTypeOf<"refund_charge">();
    expectTypeOf(nameOfClientTool(pickRatio)).toEqualTypeOf<"pick_aspect_ratio">();
    // @ts-expect-error a client tool is not a server tool
    nameOfServerTool(pickTemplate);
  });
});
