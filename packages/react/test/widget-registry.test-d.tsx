import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createWidgetRegistry, type WidgetProps, type WidgetPropsFor } from "../src/index.js";

const tools = {
  pickTemplate: defineClientTool({
    name: "pick_template",
    description: "d",
    inputSchema: z.object({ templates: z.array(z.object({ id: z.string() })) }),
    answerSchema: z.object({ templateId: z.string() }),
  }),
  refund: defineTool({
    name: "refund_charge",
    description: "d",
    inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
    approval: () => true,
  }),
};
type Tools = typeof tools;

function TemplatePicker(props: WidgetProps<{ templates: { id: string }[] }, { templateId: string }>) {
  expectTypeOf(props.request.input.templates).toEqualTypeOf<{ id: string }[]>();
  expectTypeOf(props.respond).parameter(0).toEqualTypeOf<{ templateId: string }>();
  return null;
}
function ApprovalWidget(_props: WidgetProps<unknown, { reason?: string }>) {
  return null;
}
function WrongAnswer(_props: WidgetProps<{ templates: { id: string }[] }, { templateId: number }>) {
  return null;
}
function WrongInput(_props: WidgetProps<{ colours: string[] }, { templateId: string }>) {
  return null;
}

describe("createWidgetRegistry", () => {
  it("accepts a widget whose props fit the tool's definition", () => {
    createWidgetRegistry<Tools>().add("pick_template", TemplatePicker).add("refund_charge", ApprovalWidget);
    createWidgetRegistry<Tools>({ pick_template: TemplatePicker, refund_charge: ApprovalWidget });
  });

  it("accepts a widget typed with WidgetPropsFor, its tool name narrowed, an optional answer field included", () => {
    const colours = {
      pickColour: defineClientTool({
        name: "pick_colour",
        description: "d",
        inputSchema: z.object({ colours: z.array(z.string()) }),
        answerSchema: z.object({ colour: z.enum(["red", "green"]), note: z.string().optional() }),
      }),
    };
    function ColourPicker(props: WidgetPropsFor<typeof colours, "pick_colour">) {
      expectTypeOf(props.request.toolName).toEqualTypeOf<"pick_colour">();
      expectTypeOf(props.respond).parameter(0).toEqualTypeOf<{ colour: "red" | "green"; note?: string | undefined }>();
      return null;
    }
    createWidgetRegistry<typeof colours>().add("pick_colour", ColourPicker);
    createWidgetRegistry<typeof colours>({ pick_colour: ColourPicker });
  });

  it("types an inline widget's props from the definition", () => {
    createWidgetRegistry<Tools>().add("refund_charge", ({ request, respond }) => {
      expectTypeOf(request.input).toEqualTypeOf<{ chargeId: string; amount: number }>();
      expectTypeOf(respond).parameter(0).toEqualTypeOf<{ reason?: string }>();
      return null;
    });
  });

  it("refuses an unknown tool name", () => {
    // @ts-expect-error "pick_colour" is not a tool
    createWidgetRegistry<Tools>().add("pick_colour", TemplatePicker);
    // @ts-expect-error "pick_colour" is not a tool
    createWidgetRegistry<Tools>({ pick_colour: TemplatePicker });
  });

  it("refuses a widget whose answer or input does not fit", () => {
    // @ts-expect-error the answer's templateId is a string, not a number
    createWidgetRegistry<Tools>().add("pick_template", WrongAnswer);
    // @ts-expect-error the input has templates, not colours
    createWidgetRegistry<Tools>().add("pick_template", WrongInput);
  });
});

describe("a server tool that asks while it runs (`asks`)", () => {
  const asking = {
    bookTable: defineTool({
      name: "book_table",
      description: "d",
      inputSchema: z.object({ restaurant: z.string() }),
      asks: z.object({ seats: z.number(), date: z.string() }),
    }),
    mcpTool: defineTool({ name: "mcp_tool", description: "d", inputSchema: z.object({}), asks: {} }),
    plain: defineTool({ name: "plain", description: "d", inputSchema: z.object({}) }),
  };
  type Asking = typeof asking;

  it("types its widget's answer as an approval's or its question's", () => {
    type Booking = WidgetPropsFor<Asking, "book_table">;
    expectTypeOf<Parameters<Booking["respond"]>[0]>().toEqualTypeOf<
      { reason?: string } | { seats: number; date: string }
    >();
    function BookingForm(
      props: WidgetProps<{ restaurant: string }, { reason?: string } | { seats: number; date: string }>,
    ) {
      if (props.request.kind === "input") props.respond({ seats: 2, date: "2026-12-01" });
      return null;
    }
    createWidgetRegistry<Asking>().add("book_table", BookingForm);
  });

  it("takes any answer for questions that vary (`asks: {}`), and an approval's alone without `asks`", () => {
    expectTypeOf<Parameters<WidgetPropsFor<Asking, "mcp_tool">["respond"]>[0]>().toBeUnknown();
    expectTypeOf<Parameters<WidgetPropsFor<Asking, "plain">["respond"]>[0]>().toEqualTypeOf<{ reason?: string }>();
  });
});
