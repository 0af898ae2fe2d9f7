import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type AgentClient, type ClientState, createAgentClient, type RequestState } from "../src/index.js";

const tools = {
  pickTemplate: defineClientTool({
    name: "pick_template",
    description: "d",
    inputSchema: z.object({ templates: z.array(z.string()) }),
    answerSchema: z.object({ templateId: z.string() }),
  }),
  refund: defineTool({
    name: "refund_charge",
    description: "d",
    inputSchema: z.object({ chargeId: z.string() }),
    approval: () => true,
  }),
};

describe("createAgentClient<typeof tools>", () => {
  const client = createAgentClient<typeof tools>({ url: "/api/agent" });

  it("types each request's input and answer by its tool, in the state and the listener's", () => {
    for (const state of client.getSnapshot().pending) {
      if (state.request.toolName === "pick_template") {
        expectTypeOf(state.request.input).toEqualTypeOf<{ templates: string[] }>();
      } else {
        expectTypeOf(state.request.input).toEqualTypeOf<{ chargeId: string }>();
      }
    }
    client.subscribe((state) => {
      const [first] = state.pending;
      if (first?.request.toolName === "refund_charge") expectTypeOf(first.request.input.chargeId).toBeString();
    });
  });

  it("takes the answer of the request's tool only", () => {
    const [state] = client.getSnapshot().pending;
    if (state?.request.toolName === "pick_template") {
      void client.respond(state.request, { templateId: "calm" });
      // @ts-expect-error a template id is a string
      void client.respond(state.request, { templateId: 42 });
      // @ts-expect-error the picker's answer names a template, not an approval's note
      void client.respond(state.request, { reason: "fine" });
    }
    if (state?.request.toolName === "refund_charge") void client.respond(state.request, { reason: "loyal customer" });
  });

  it("is still an AgentClient, for useAgent({ client }) and anything that takes one", () => {
    const untyped: AgentClient = client;
    expectTypeOf(untyped.getSnapshot()).toEqualTypeOf<ClientState>();
    expectTypeOf(untyped.getSnapshot().pending).toEqualTypeOf<readonly RequestState[]>();
  });
});

describe("createAgentClient without a tool map", () => {
  it("takes any answer for a request named by its id, as before", () => {
    const client = createAgentClient({ url: "/api/agent" });
    void client.respond("req_1", { anything: true });
    void client.respond({ requestId: "req_1" }, 7);
  });
});
