import type { UseChatHelpers } from "@ai-sdk/react";
import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import type { UIMessage } from "ai";
import { expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { HitlDataTypes, HitlUITools } from "../src/index.js";

const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Pick a template.",
  inputSchema: z.object({ templates: z.array(z.string()) }),
  answerSchema: z.object({ templateId: z.string() }),
});
const publishPoster = defineTool({
  name: "publish_poster",
  description: "Publish the poster.",
  inputSchema: z.object({ title: z.string() }),
});
const tools = { pickTemplate, publishPoster };
type Message = UIMessage<unknown, HitlDataTypes, HitlUITools<typeof tools>>;
type Part = Message["parts"][number];

it("types each tool part by its tool's name: the input from its schema, a client tool's output its answer", () => {
  expectTypeOf<Extract<Part, { type: "tool-pick_template"; state: "input-available" }>["input"]>().toEqualTypeOf<{
    templates: string[];
  }>();
  expectTypeOf<Extract<Part, { type: "tool-pick_template"; state: "output-available" }>["output"]>().toEqualTypeOf<{
    templateId: string;
  }>();
  expectTypeOf<Extract<Part, { type: "tool-publish_poster"; state: "output-available" }>["output"]>().toBeUnknown();
  expectTypeOf<Extract<Part, { type: "tool-publish_poster"; state: "input-available" }>["input"]>().toEqualTypeOf<{
    title: string;
  }>();
});

it("lets addToolOutput take a client tool's answer, and refuses another shape", () => {
  const addToolOutput = (() => Promise.resolve()) as unknown as UseChatHelpers<Message>["addToolOutput"];
  void addToolOutput({ tool: "pick_template", toolCallId: "call_1", output: { templateId: "calm" } });
  // @ts-expect-error: not the answer's shape
  void addToolOutput({ tool: "pick_template", toolCallId: "call_1", output: { templateId: 42 } });
  // @ts-expect-error: no such tool
  void addToolOutput({ tool: "pick_colour", toolCallId: "call_1", output: {} });
});
