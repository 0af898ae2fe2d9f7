import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type AgentClient,
  type ClientState,
  createAgentClient,
  isOpen,
  type RequestError,
  type RequestResolution,
  type RequestState,
  type RequestStateOf,
  type SentAnswer,
} from "../src/index.js";

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

type Answer = { templateId: string };
declare const state: RequestState<{ templates: string[] }, Answer>;

describe("RequestState", () => {
  it("has no resolution, sent answer or error while pending", () => {
    if (state.status === "pending") {
      expectTypeOf(state.resolution).toEqualTypeOf<undefined>();
      expectTypeOf(state.error).toEqualTypeOf<undefined>();
      // @ts-expect-error an open request has no resolution
      state.resolution.value;
      // @ts-expect-error a pending request has sent nothing
      state.sent.action;
    }
  });

  it("knows what was sent while submitting, and nothing else", () => {
    if (state.status === "submitting") {
      expectTypeOf(state.sent).toEqualTypeOf<SentAnswer<Answer>>();
      if (state.sent.action === "accept") expectTypeOf(state.sent.value).toEqualTypeOf<Answer>();
      // @ts-expect-error an answer in flight has no resolution yet
      state.resolution.action;
    }
  });

  it("carries the error when the last answer was refused, and stays open", () => {
    if (state.status === "error") {
      expectTypeOf(state.error).toEqualTypeOf<RequestError>();
      // @ts-expect-error a refused answer settled nothing
      state.resolution.value;
      expectTypeOf(isOpen(state)).toBeBoolean();
    }
  });

  it("has its resolution once settled, and no error", () => {
    if (state.status === "resolved") {
      expectTypeOf(state.resolution.value).toEqualTypeOf<Answer>();
      expectTypeOf(state.resolution.action).toEqualTypeOf<"accept">();
      // @ts-expect-error a settled request has no error
      state.error.message;
    }
    if (state.status === "declined" || state.status === "cancelled" || state.status === "expired") {
      expectTypeOf(state.resolution).toExtend<RequestResolution<Answer>>();
      expectTypeOf(state.resolution.reason).toEqualTypeOf<string | undefined>();
      // @ts-expect-error only an accepted request has a value
      state.resolution.value.templateId;
    }
  });

  it("refuses reading the resolution or error before narrowing", () => {
    // @ts-expect-error the request may still be open
    state.resolution.value;
    // @ts-expect-error only a refused answer has an error
    state.error.message;
  });

  it("narrows to the open states with isOpen", () => {
    if (isOpen(state)) {
      expectTypeOf(state.status).toEqualTypeOf<"pending" | "submitting" | "error">();
      // @ts-expect-error an open request has no resolution
      state.resolution.value;
    }
  });
});

describe("RequestStateOf", () => {
  it("types each request's input and answer from its tool", () => {
    const any = {} as RequestStateOf<typeof tools>;
    expectTypeOf(any.request.toolName).toEqualTypeOf<"pick_template" | "refund_charge">();
    const picking = {} as Extract<RequestStateOf<typeof tools>, { request: { toolName: "pick_template" } }>;
    expectTypeOf(picking.request.input).toEqualTypeOf<{ templates: string[] }>();
    if (picking.status === "resolved") expectTypeOf(picking.resolution.value).toEqualTypeOf<{ templateId: string }>();
  });
});

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
