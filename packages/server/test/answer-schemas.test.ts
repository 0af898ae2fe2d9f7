// biome-ignore-all lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, in schemas, not thenables
import { askQuestion, defineClientTool, validateJsonSchema } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { disagreements } from "../../protocol/test/answer-agreement.js";
import { scriptedModel } from "../src/index.js";
import { startServer } from "./harness.js";
import { pickMedia, pickTemplate } from "./tools.js";

describe("the test tools' answer schemas", () => {
  it.each([
    { name: pickTemplate.name, schema: pickTemplate.answerSchema, samples: [{ templateId: "calm" }] },
    { name: pickMedia.name, schema: pickMedia.answerSchema, samples: [{ mediaIds: ["m1"] }, { mediaIds: ["a", "b"] }] },
    { name: "ask_question", schema: askQuestion().answerSchema, samples: [{ answer: "because" }] },
  ])("$name: the browser's check of its JSON Schema agrees with zod on the server", async ({ schema, samples }) => {
    expect(await disagreements(schema, samples)).toEqual([]);
  });
});

describe("a plain JSON Schema answer", () => {
  const shipping = defineClientTool({
    name: "pick_shipping",
    description: "Ask how to ship.",
    inputSchema: {},
    answerSchema: {
      type: "object",
      properties: { method: { enum: ["post", "pickup"] }, address: { type: "string" }, store: { type: "string" } },
      required: ["method"],
      if: { properties: { method: { const: "post" } } },
      then: { required: ["address"] },
      else: { required: ["store"] },
      dependentRequired: { address: ["method"] },
      unevaluatedProperties: false,
    },
  });
  let server: ReturnType<typeof startServer>;
  afterEach(() => server?.close());

  it("is refused and accepted on the server exactly as the browser's validateJsonSchema decides", async () => {
    server = startServer(scriptedModel([{ toolCalls: [{ toolName: "pick_shipping", input: {} }] }, { text: "ok" }]), {
      tools: [shipping],
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "ship it" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    const answer = (value: unknown) =>
      server.call("POST", `/sessions/${id}/responses`, {
        responses: [{ requestId: request!.requestId, action: "accept", value }],
      });

    for (const value of [
      { method: "post" },
      { method: "pickup", address: "x" },
      { method: "post", address: "x", gift: 1 },
    ]) {
      const browser = validateJsonSchema(request!.answerSchema, value);
      expect(browser.ok).toBe(false);
      const response = await answer(value);
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual(browser.issues);
    }
    expect(validateJsonSchema(request!.answerSchema, { method: "post", address: "1 Main St" }).ok).toBe(true);
    expect((await answer({ method: "post", address: "1 Main St" })).status).toBe(202);
  });
});

describe("an answer schema that transforms", () => {
  const passenger = defineClientTool({
    name: "passenger",
    description: "Ask for the passport.",
    inputSchema: z.object({}),
    answerSchema: z.object({ passport: z.string().transform((raw) => ({ raw, length: raw.length })) }),
  });
  let server: ReturnType<typeof startServer>;
  afterEach(() => server?.close());

  it("keeps the answer as the person gave it, and gives the model the schema's output", async () => {
    server = startServer(scriptedModel([{ toolCalls: [{ toolName: "passenger", input: {} }] }, { text: "ok" }]), {
      tools: [passenger],
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    const sent = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { passport: "X123" } }],
    });
    expect(sent.body.resolutions[0].value).toEqual({ passport: "X123" });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.find((event) => event.type === "input.resolved")).toMatchObject({
      action: "accept",
      value: { passport: "X123" },
    });
    expect(events.find((event) => event.type === "tool.result")).toMatchObject({
      outcome: "ok",
      output: { passport: { raw: "X123", length: 4 } },
    });
  });
});
