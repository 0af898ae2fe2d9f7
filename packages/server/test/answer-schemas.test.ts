// biome-ignore-all lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, in schemas, not thenables
import { askQuestion, defineClientTool, validateJsonSchema } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it } from "vitest";
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
