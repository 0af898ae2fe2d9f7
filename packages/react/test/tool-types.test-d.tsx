import { defineClientTool, defineTool, type ToolSet } from "@hitl-kit/protocol";
import { implement } from "@hitl-kit/server";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type AgentView,
  createWidgetRegistry,
  type ParkedRequestView,
  useAgent,
  useParkedRequest,
  type WidgetProps,
} from "../src/index.js";
// Only types from the definitions: nothing of them, nor of zod, is loaded at run time.
import type { tools as liveTools } from "./live-tools.js";

// One definition, shared by server and browser.
const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.object({ id: z.string(), name: z.string() })) }),
  answerSchema: z.object({ templateId: z.string() }),
});
const refund = defineTool({
  name: "refund_charge",
  description: "Refund a charge.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
  approval: () => true,
});
const tools = { pickTemplate, refund };

// The same tool with one field of its answer schema changed: templateId is now a number.
const pickTemplateChanged = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template.",
  inputSchema: z.object({ templates: z.array(z.object({ id: z.string(), name: z.string() })) }),
  answerSchema: z.object({ templateId: z.number() }),
});
const changedTools = { pickTemplate: pickTemplateChanged, refund };

// The widget, written against the answer as it was.
function TemplatePicker(props: WidgetProps<{ templates: { id: string; name: string }[] }, { templateId: string }>) {
  if (props.status === "resolved") return <p>{props.resolution.value.templateId.toUpperCase()}</p>;
  return <button type="button" onClick={() => props.respond({ templateId: props.request.input.templates[0]!.id })} />;
}

describe("types from the tool definition to every call site", () => {
  it("types the widget, the server's resolve and the answer from one definition", () => {
    createWidgetRegistry<typeof tools>().add("pick_template", TemplatePicker);
    implement(pickTemplate, { resolve: (answer) => answer.templateId.toUpperCase() });

    function Answerer() {
      const agent = useAgent<typeof tools>({ url: "/api/agent" });
      const state = agent.pending[0];
      if (state?.request.toolName === "pick_template") {
        expectTypeOf(state.request.input.templates).toEqualTypeOf<{ id: string; name: string }[]>();
        void agent.respond(state.request, { templateId: "calm" });
        // @ts-expect-error the answer is { templateId: string }
        void agent.respond(state.request, { templateId: 7 });
      }
      if (state?.request.toolName === "refund_charge") {
        void agent.respond(state.request, { reason: "Checked with the customer." });
        // @ts-expect-error an approval's answer is { reason?: string }
        void agent.respond(state.request, { templateId: "calm" });
        void agent.decline(state.request, "Too much.");
      }
      const parked = useParkedRequest("req_1", { tool: pickTemplate });
      if (parked?.status === "resolved") expectTypeOf(parked.resolution.value).toEqualTypeOf<{ templateId: string }>();
      parked?.respond({ templateId: "calm" });
      // @ts-expect-error the answer is { templateId: string }
      parked?.respond({ templateId: 7 });
      return null;
    }
    expectTypeOf(Answerer).toBeFunction();
  });

  it("keeps the answer typed in a click handler when the request, not its state, is narrowed", () => {
    function QuickAnswer() {
      const agent = useAgent<typeof tools>({ url: "/api/agent" });
      const request = agent.pending[0]?.request;
      if (request?.toolName !== "pick_template") return null;
      return (
        <>
          <button type="button" onClick={() => agent.respond(request, { templateId: "calm" })} />
          {/* @ts-expect-error an approval's answer is not pick_template's */}
          <button type="button" onClick={() => agent.respond(request, { reason: "ok" })} />
        </>
      );
    }
    expectTypeOf(QuickAnswer).toBeFunction();
  });

  it("types useParkedRequest from the tool's type given only its name, so the definition can be a type-only import", () => {
    function ByName() {
      const parked = useParkedRequest<typeof liveTools.pickTemplate>("req_1", { tool: "pick_template" });
      expectTypeOf(parked).toEqualTypeOf<ParkedRequestView<typeof liveTools.pickTemplate> | undefined>();
      if (parked?.status === "resolved") expectTypeOf(parked.resolution.value).toEqualTypeOf<{ templateId: string }>();
      expectTypeOf(parked!.request.toolName).toEqualTypeOf<"pick_template">();
      parked?.respond({ templateId: "calm" });
      // @ts-expect-error the answer is { templateId: string }
      parked?.respond({ templateId: 7 });
      // @ts-expect-error the name must be the tool's
      useParkedRequest<typeof liveTools.pickTemplate>("req_1", { tool: "pick_paper" });
      return null;
    }
    expectTypeOf(ByName).toBeFunction();
  });

  it("flags the widget, the server's resolve and the answer when one answer field changes", () => {
    // @ts-expect-error the widget answers { templateId: string }, the tool now wants a number
    createWidgetRegistry<typeof changedTools>().add("pick_template", TemplatePicker);
    // @ts-expect-error templateId is a number now: it has no toUpperCase
    implement(pickTemplateChanged, { resolve: (answer) => answer.templateId.toUpperCase() });

    function Answerer() {
      const agent = useAgent<typeof changedTools>({ url: "/api/agent" });
      const state = agent.pending[0];
      if (state?.request.toolName === "pick_template") {
        // @ts-expect-error the answer is { templateId: number } now
        void agent.respond(state.request, { templateId: "calm" });
      }
      const parked = useParkedRequest("req_1", { tool: pickTemplateChanged });
      // @ts-expect-error the answer is { templateId: number } now
      parked?.respond({ templateId: "calm" });
      return null;
    }
    expectTypeOf(Answerer).toBeFunction();
  });

  it("types a selector from its argument's tool map", () => {
    function Picks() {
      const picks = useAgent((agent: AgentView<typeof tools>) =>
        agent.pending.flatMap((state) => (state.request.toolName === "pick_template" ? [state.request] : [])),
      );
      expectTypeOf(picks[0]!.input.templates).toEqualTypeOf<{ id: string; name: string }[]>();
      const respond = useAgent({ url: "/api/agent" }, (agent: AgentView<typeof tools>) => agent.respond);
      if (picks[0]) {
        void respond(picks[0], { templateId: "calm" });
        // @ts-expect-error the answer is { templateId: string }
        void respond(picks[0], { templateId: 7 });
      }
      const status = useAgent((agent) => agent.status);
      expectTypeOf(status).toEqualTypeOf<AgentView["status"]>();
      return null;
    }
    expectTypeOf(Picks).toBeFunction();
  });

  it("keeps an untyped agent open to any answer, and an unknown tool's request untyped", () => {
    const agent = {} as AgentView;
    expectTypeOf(agent.respond).parameter(1).toEqualTypeOf<unknown>();
    expectTypeOf(agent.pending[0]!.request.input).toEqualTypeOf<unknown>();
    expectTypeOf<AgentView<ToolSet>>().toEqualTypeOf<AgentView>();
    const parked = {} as ParkedRequestView;
    expectTypeOf(parked.respond).parameter(0).toEqualTypeOf<unknown>();
  });
});
