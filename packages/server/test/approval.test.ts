import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkOneResultPerCall, startServer } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";
import { executions } from "./tools.js";

let server: ReturnType<typeof startServer>;
afterEach(() => server?.close());
beforeEach(() => {
  executions.length = 0;
});

async function parkedRequest(script: Parameters<typeof recordingModel>[0]) {
  const recording = recordingModel(script);
  server = startServer(recording.model);
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
  await server.runtime.idle();
  return { id, prompts: recording.prompts, pending: (await server.snapshot(id)).pending };
}

const respond = (id: string, responses: unknown[]) => server.call("POST", `/sessions/${id}/responses`, { responses });

describe("approval-gated server tools", () => {
  it("executes an approved call once, with the person's note in ctx.approval", async () => {
    const { id, prompts, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
      { text: "Refunded." },
    ]);
    expect(pending[0]).toMatchObject({ kind: "approval", toolName: "refund_charge", answerSchema: { type: "object" } });
    expect(executions).toEqual([]);

    const approve = { requestId: pending[0]!.requestId, action: "accept", value: { reason: "loyal customer" } };
    expect((await respond(id, [approve])).status).toBe(202);
    expect((await respond(id, [approve])).status).toBe(200);
    await server.runtime.idle();

    expect(executions).toEqual([
      {
        tool: "refund_charge",
        input: { chargeId: "ch_1", amount: 1500 },
        approval: { approved: true, reason: "loyal customer" },
      },
    ]);
    expect(lastToolResults(prompts[1])[0]).toMatchObject({ output: { type: "json", value: { refunded: 1500 } } });
    expect(checkOneResultPerCall(await server.events(id))).toEqual([]);
  });

  it("hands the tool the approver's note sent beside the answer, as the event shows it", async () => {
    const { id, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
      { text: "Refunded." },
    ]);
    expect(
      (await respond(id, [{ requestId: pending[0]!.requestId, action: "accept", reason: "loyal customer" }])).status,
    ).toBe(202);
    await server.runtime.idle();
    expect(executions).toMatchObject([{ approval: { approved: true, reason: "loyal customer" } }]);
    const resolved = (await server.events(id)).find((event) => event.type === "input.resolved");
    expect(resolved).toMatchObject({ action: "accept", reason: "loyal customer" });
  });

  it("refuses a decline or cancel that carries a value, and keeps the request open", async () => {
    const { id, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
    ]);
    const requestId = pending[0]!.requestId;
    for (const action of ["decline", "cancel"]) {
      const refused = await respond(id, [{ requestId, action, value: { reason: "not this customer" } }]);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe(
        `A ${action} carries no value (request ${requestId}): say why in "reason".`,
      );
    }
    expect((await server.snapshot(id)).pending).toEqual(pending);
  });

  it("says an approved call that had not run yet did not run when a new message ends the turn", async () => {
    const { id, pending } = await parkedRequest([
      {
        toolCalls: [
          { toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } },
          { toolName: "refund_charge", input: { chargeId: "ch_2", amount: 2500 } },
        ],
      },
      { text: "Understood." },
    ]);
    expect(pending).toHaveLength(2);
    expect((await respond(id, [{ requestId: pending[0]!.requestId, action: "accept" }])).status).toBe(202);
    await server.runtime.idle(); // the approved call waits for the step's other answer
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "never mind" })).status).toBe(202);
    await server.runtime.idle();
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result").map((event) => event.output)).toEqual([
      { reason: "The person sent a new message instead of answering." },
      { reason: "The person sent a new message before this approved call ran, so it did not run." },
    ]);
    expect(executions).toEqual([]);
  });

  it("refuses an approval with two different notes, and takes one sent twice alike", async () => {
    const { id, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
    ]);
    const requestId = pending[0]!.requestId;
    const refused = await respond(id, [
      { requestId, action: "accept", value: { reason: "in value" }, reason: "beside" },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/two different notes.*send the approver's note once/);
    expect((await server.snapshot(id)).pending).toEqual(pending);
    const taken = await respond(id, [{ requestId, action: "accept", value: { reason: "ok" }, reason: "ok" }]);
    expect(taken.status).toBe(202);
  });

  it("refuses an answer with a field it does not know, as an edited input, rather than approve what was asked", async () => {
    const { id, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 1500 } }] },
    ]);
    const edited = { requestId: pending[0]!.requestId, action: "accept", input: { chargeId: "ch_1", amount: 500 } };
    const refused = await respond(id, [edited]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/input/);
    expect((await server.snapshot(id)).pending).toEqual(pending);
    expect(executions).toEqual([]);
  });

  it("runs a call below the predicate's threshold without asking", async () => {
    const { id, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_1", amount: 20 } }] },
      { text: "Refunded." },
    ]);
    expect(pending).toEqual([]);
    expect(executions).toHaveLength(1);
    expect((await server.snapshot(id)).status).toBe("idle");
  });

  it("denies with one declined result carrying the reason, and the model goes on", async () => {
    const { id, prompts, pending } = await parkedRequest([
      { toolCalls: [{ toolName: "publish_poster", input: { title: "Spring" } }] },
      { text: "I will not publish it." },
    ]);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "decline", reason: "not yet" }]);
    await server.runtime.idle();
    expect(executions).toEqual([]);
    const results = (await server.events(id)).filter((event) => event.type === "tool.result");
    expect(results).toEqual([expect.objectContaining({ outcome: "declined", output: { reason: "not yet" } })]);
    expect(lastToolResults(prompts[1])[0]).toMatchObject({
      output: { type: "execution-denied", reason: "The person declined, saying: not yet" },
    });
    expect((await server.snapshot(id)).messages.at(-1)?.parts).toEqual([
      { type: "text", text: "I will not publish it." },
    ]);
  });

  it("asks once() per session: the second call runs without asking", async () => {
    const email = { toolName: "send_email", input: { to: "a@b.co" } };
    const { id, pending } = await parkedRequest([
      { toolCalls: [email] },
      { toolCalls: [email] },
      { text: "Sent twice." },
    ]);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "accept" }]);
    await server.runtime.idle();
    expect(executions.map((execution) => execution.tool)).toEqual(["send_email", "send_email"]);
    expect((await server.snapshot(id)).status).toBe("idle");
  });
});

describe("several calls in one step", () => {
  it("runs the server tool, parks the client tool, and resumes once the parked one is answered", async () => {
    const { id, prompts, pending } = await parkedRequest([
      {
        toolCalls: [
          { toolName: "lookup_weather", input: { city: "Oslo" } },
          { toolName: "pick_template", input: { templates: ["a"] } },
        ],
      },
      { text: "Both done." },
    ]);
    expect(pending.map((request) => request.toolName)).toEqual(["pick_template"]);
    expect(executions).toHaveLength(1);
    expect(prompts).toHaveLength(1);
    await respond(id, [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "a" } }]);
    await server.runtime.idle();
    expect(lastToolResults(prompts[1]).map((part) => part.toolName)).toEqual(["lookup_weather", "pick_template"]);
  });

  it("acknowledges partial answers and resumes only when every request is settled", async () => {
    const { id, prompts, pending } = await parkedRequest([
      {
        toolCalls: [
          { toolName: "pick_template", input: { templates: ["a"] } },
          { toolName: "publish_poster", input: { title: "T" } },
          { toolName: "ask_question", input: { question: "Colour?", choices: ["red", "blue"] } },
        ],
      },
      { text: "All answered." },
    ]);
    expect(pending).toHaveLength(3);
    const [template, approval, question] = pending;
    expect(
      (await respond(id, [{ requestId: question!.requestId, action: "accept", value: { answer: "red" } }])).status,
    ).toBe(202);
    await server.runtime.idle();
    let snapshot = await server.snapshot(id);
    expect(snapshot.status).toBe("waiting");
    expect(snapshot.pending.map((request) => request.requestId)).toEqual([template!.requestId, approval!.requestId]);
    expect(prompts).toHaveLength(1);

    await respond(id, [
      { requestId: template!.requestId, action: "accept", value: { templateId: "a" } },
      { requestId: approval!.requestId, action: "accept" },
    ]);
    await server.runtime.idle();
    snapshot = await server.snapshot(id);
    expect(snapshot.status).toBe("idle");
    expect(lastToolResults(prompts[1]).map((part) => [part.toolName, part.output.type])).toEqual([
      ["pick_template", "json"],
      ["publish_poster", "json"],
      ["ask_question", "json"],
    ]);
    expect(checkOneResultPerCall(await server.events(id))).toEqual([]);
  });

  it("gives a call to an unknown tool or with invalid input an error result, and the model continues", async () => {
    const { id, prompts } = await parkedRequest([
      {
        toolCalls: [
          { toolName: "launch_rocket", input: {} },
          { toolName: "lookup_weather", input: { town: "Oslo" } },
          { toolName: "lookup_weather", input: "{not json" },
          { toolName: "lookup_weather", input: { city: "Atlantis" } },
        ],
      },
      { text: "Sorry." },
    ]);
    const outputs = lastToolResults(prompts[1]).map((part) => part.output);
    expect(outputs).toEqual([
      { type: "error-text", value: expect.stringContaining('There is no tool named "launch_rocket"') },
      { type: "error-text", value: expect.stringContaining("city") },
      { type: "error-text", value: expect.stringContaining("not valid JSON") },
      { type: "error-text", value: "No such city" },
    ]);
    expect(checkOneResultPerCall(await server.events(id))).toEqual([]);
  });
});
